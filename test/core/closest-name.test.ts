import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../../core/text/closest-name.js';

describe('closestName', () => {
  const keys = ['provider', 'permission', 'model', 'small_model', 'agent', 'command'];

  it('finds the key a slip of the keyboard meant', () => {
    expect(closestName('provder', keys)).toBe('provider');
    expect(closestName('permision', keys)).toBe('permission');
    expect(closestName('agnet', keys)).toBe('agent');
    expect(closestName('Model', keys)).toBe('model');
  });

  it('suggests nothing for a name that is not near any', () => {
    expect(closestName('colour_scheme', keys)).toBeUndefined();
    expect(closestName('x', keys)).toBeUndefined();
  });
});

it('counts insertions, deletions, substitutions and swaps of neighbours', () => {
  expect(editDistance('agnet', 'agent')).toBe(1);
  expect(editDistance('provder', 'provider')).toBe(1);
  expect(editDistance('kitten', 'sitting')).toBe(3);
  expect(editDistance('', 'abc')).toBe(3);
});
