import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SearchAttributeType } from '@temporalio/common';
import { loomSearchAttributes } from '../../core/search-attributes.js';

const SCRIPT = fileURLToPath(new URL('../../temporal-dev.sh', import.meta.url));

/** The Temporal CLI's name for each SDK type (`--search-attribute Name=Type`). */
const CLI_TYPE: Record<SearchAttributeType, string> = {
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `LOOM_SEARCH_ATTRIBUTES="A=Keyword B=Bool"` from the script, as sorted `Name=Type` entries. */
function scriptAttributes(): string[] {
  const match = /^LOOM_SEARCH_ATTRIBUTES="([^"]*)"$/m.exec(readFileSync(SCRIPT, 'utf8'));
  if (!match) throw new Error(`No LOOM_SEARCH_ATTRIBUTES="…" line in ${SCRIPT}`);
  return match[1].split(/\s+/).filter(Boolean).sort();
}

describe('search attributes', () => {
  it('are exactly the ones temporal-dev.sh registers, with the same types', () => {
    const fromCode = loomSearchAttributes.map((key) => `${key.name}=${CLI_TYPE[key.type]}`).sort();
    expect(fromCode).toEqual(scriptAttributes());
  });

  it('have unique names', () => {
    const names = loomSearchAttributes.map((key) => key.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
