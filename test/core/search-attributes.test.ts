import { describe, expect, it } from 'vitest';
import { SEARCH_ATTRIBUTE_FLAGS } from '../../dev-server/search-attributes.js';
import { loomSearchAttributes } from '../../core/runs/search-attributes.js';

/** The types `temporal server start-dev --search-attribute Name=Type` accepts. */
const CLI_TYPES = ['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'];

describe('search attributes', () => {
  // core/runs/search-attributes.ts is the one source: temporal-dev.sh (dev-server/) registers
  // what it derives from it.
  it('are the ones temporal-dev.sh registers, under the CLI type names', () => {
    expect(SEARCH_ATTRIBUTE_FLAGS.map((flag) => flag.split('=')[0])).toEqual(
      loomSearchAttributes.map((key) => key.name),
    );
    for (const flag of SEARCH_ATTRIBUTE_FLAGS) expect(CLI_TYPES).toContain(flag.split('=')[1]);
    expect(SEARCH_ATTRIBUTE_FLAGS).toContain('LoomAgent=Keyword');
    expect(SEARCH_ATTRIBUTE_FLAGS).toContain('LoomWaiting=Bool');
  });

  it('have unique names', () => {
    const names = loomSearchAttributes.map((key) => key.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
