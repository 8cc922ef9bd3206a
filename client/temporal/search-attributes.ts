import type { Connection } from '@temporalio/client';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { enums } from '../../activities/hosts/proto-enums.js';
import { loomSearchAttributes } from '../../core/runs/search-attributes.js';
import { grpcStatus } from '../../worker/connection/error-details.js';
import type { TemporalTarget } from '../../worker/connection/target.js';

/** Loom's search attributes in a namespace: there (or added now), or missing with the reason. */
export type SearchAttributeState =
  { state: 'present' } | { state: 'added'; names: string[] } | { state: 'missing'; missing: string[]; reason: string };

const TYPE_NAMES: Record<string, string> = {
  KEYWORD: 'Keyword',
  BOOL: 'Bool',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};
const ADDED_WAIT_MS = 10_000;

/**
 * Checks Loom's search attributes in the target's namespace and, with `add`, registers the
 * missing ones through the operator API. Where the credentials may not (Temporal Cloud's API keys,
 * a cluster's non-admin certificates), they stay missing: runs then set none rather than fail.
 */
export async function checkSearchAttributes(
  connection: Connection,
  target: TemporalTarget,
  options: { add: boolean },
): Promise<SearchAttributeState> {
  const namespace = target.namespace;
  let existing: Record<string, number>;
  try {
    existing = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (error) {
    return {
      state: 'missing',
      missing: loomSearchAttributes.map((key) => key.name),
      reason: `listing them was refused (${refusal(error)})`,
    };
  }
  const wrongType = loomSearchAttributes.filter(
    (key) => existing[key.name] !== undefined && existing[key.name] !== indexedType(key.type),
  );
  if (wrongType.length) {
    const names = wrongType.map(
      (key) => `${key.name} is ${typeName(existing[key.name]!)}, not ${TYPE_NAMES[key.type]}`,
    );
    return {
      state: 'missing',
      missing: wrongType.map((key) => key.name),
      reason: `${names.join('; ')} (remove or rename them)`,
    };
  }
  const missing = loomSearchAttributes.filter((key) => existing[key.name] === undefined);
  if (missing.length === 0) return { state: 'present' };
  const names = missing.map((key) => key.name);
  if (!options.add) return { state: 'missing', missing: names, reason: 'not added yet' };
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, indexedType(key.type)])),
    });
  } catch (error) {
    return { state: 'missing', missing: names, reason: `these credentials may not add them (${refusal(error)})` };
  }
  await untilListed(connection, namespace, names);
  return { state: 'added', names };
}

/** A namespace takes a moment to list what was just added; a run started before would be refused them. */
async function untilListed(connection: Connection, namespace: string, names: string[]): Promise<void> {
  const until = Date.now() + ADDED_WAIT_MS;
  while (Date.now() < until) {
    const listed = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
    if (names.every((name) => listed[name] !== undefined)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What to tell a person whose namespace lacks the attributes, with the commands that add them. */
export function missingAttributesNotice(
  target: TemporalTarget,
  state: Extract<SearchAttributeState, { state: 'missing' }>,
): string {
  const keys = loomSearchAttributes.filter((key) => state.missing.includes(key.name));
  const ns = target.namespace;
  return [
    `Temporal at ${target.address}, namespace ${ns}, lacks Loom's search attributes ${keys.map((key) => `${key.name} (${TYPE_NAMES[key.type]})`).join(', ')}: ${state.reason}.`,
    'Runs go on without them; only the Temporal UI cannot find runs by agent, session tree or waiting approval. Add them once, and new runs carry them:',
    `  Temporal Cloud: tcld namespace search-attributes add --namespace ${ns} ${keys.map((key) => `--search-attribute "${key.name}=${TYPE_NAMES[key.type]}"`).join(' ')}`,
    ...keys.map(
      (key, i) =>
        `  ${i === 0 ? 'Other clusters:' : '               '} temporal operator search-attribute create --namespace ${ns} --name ${key.name} --type ${TYPE_NAMES[key.type]}`,
    ),
  ].join('\n');
}

/**
 * Whether this machine has said `notice` for the target already (in the data folder), and marks it
 * said: a person hears it once per namespace and list, not on every command.
 */
export function firstTimeNotice(dataDir: string, target: TemporalTarget, notice: string): boolean {
  const file = join(dataDir, 'temporal-notices.json');
  let said: Record<string, string> = {};
  try {
    said = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    said = {};
  }
  const key = `${target.address} ${target.namespace}`;
  if (said[key] === notice) return false;
  said[key] = notice;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(said, null, 2)}\n`);
  } catch {
    // Saying it again next time is better than failing the command.
  }
  return true;
}

function indexedType(type: string): number {
  return enums.IndexedValueType[`INDEXED_VALUE_TYPE_${type}` as keyof typeof enums.IndexedValueType] as number;
}

function typeName(indexed: number): string {
  const name = enums.IndexedValueType[indexed] as unknown as string | undefined;
  return name ? (TYPE_NAMES[name.replace('INDEXED_VALUE_TYPE_', '')] ?? name) : String(indexed);
}

function refusal(error: unknown): string {
  const status = grpcStatus(error);
  return status ? `the server said "${status.details}"` : (error as Error).message;
}
