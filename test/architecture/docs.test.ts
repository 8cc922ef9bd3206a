import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../worker/bundle.js';

const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8');

describe('the docs a newcomer reads first', () => {
  // The README is the door: details belong in docs/, or it grows until nobody reads it.
  it('keep the README within 250 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it("name only files that exist in architecture.md's “Where a change goes”", () => {
    const doc = read('docs/architecture.md');
    const start = doc.indexOf('## Where a change goes');
    expect(start, 'docs/architecture.md has a "Where a change goes" section').toBeGreaterThan(-1);
    const end = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, end === -1 ? undefined : end);
    const named = [
      ...section.matchAll(/`((?:core|activities|workflows|worker|client|testkit|test|bench|docs)\/[^`\s]+)`/g),
    ].map((match) => match[1]!.replace(/[*]+.*$/, '').replace(/<[^>]+>.*$/, ''));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((path) => !existsSync(join(PROJECT_ROOT, path)))).toEqual([]);
  });
});
