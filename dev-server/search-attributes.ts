import { SearchAttributeType } from '@temporalio/common';
import { loomSearchAttributes } from '../core/runs/search-attributes.js';

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

/** Loom's search attributes as the CLI names them, from core/runs/search-attributes.ts. */
export const SEARCH_ATTRIBUTES = loomSearchAttributes.map((key) => ({ name: key.name, type: CLI_TYPE[key.type] }));

/** `Name=Type`, as `temporal server start-dev --search-attribute` takes them. */
export const SEARCH_ATTRIBUTE_FLAGS = SEARCH_ATTRIBUTES.map(({ name, type }) => `${name}=${type}`);
