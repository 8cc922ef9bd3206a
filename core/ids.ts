/**
 * Ids that sort by creation: `<prefix>_<12 hex ms><4 hex counter><10 base62 random>`.
 *
 * Time and randomness are passed in, so the same function serves workflows (whose `Date.now()`
 * and `Math.random` are replay-safe) and activities. Part ids are derived from their message id,
 * so a retried activity rewrites the same rows instead of adding new ones.
 */
export type IdPrefix = 'ses' | 'msg' | 'prt' | 'per' | 'bat';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 26;

let lastTime = -1;
let counter = 0;

export function newId(prefix: IdPrefix, now: number, random: () => number): string {
  if (now === lastTime) counter++;
  else {
    lastTime = now;
    counter = 0;
  }
  let suffix = '';
  for (let i = 0; i < 10; i++) suffix += BASE62[Math.floor(random() * 62)];
  return `${prefix}_${hex(now, 12)}${hex(counter & 0xffff, 4)}${suffix}`;
}

/** The id of the `index`-th part of a message: sorts by message, then by index. */
export function partId(messageId: string, index: number): string {
  const body = idBody(messageId, 'msg');
  return `prt_${body.slice(0, 16)}${hex(index, 4)}${body.slice(16, 22)}`;
}

/**
 * An id derived from a tool call's part id (`ses_…` for the subagent a `task` call starts, `per_…`
 * for its `n`-th permission request). It depends on nothing but the part id: calls that run at the
 * same time in a workflow get the same ids on replay, whatever order their awaits resolved in.
 */
export function derivedId(prefix: IdPrefix, fromPartId: string, n = 0): string {
  const body = idBody(fromPartId, 'prt');
  return `${prefix}_${body.slice(0, 20)}${hex(n, 2)}${body.slice(22)}`;
}

/** The creation time (ms) encoded in an id. */
export function idTime(id: string): number {
  return parseInt(id.slice(id.indexOf('_') + 1, id.indexOf('_') + 13), 16);
}

export function isId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9a-f]{16}[0-9A-Za-z]{10}$`).test(value);
}

function idBody(id: string, prefix: IdPrefix): string {
  if (!id.startsWith(`${prefix}_`) || id.length !== prefix.length + 1 + BODY_LENGTH) {
    throw new Error(`Not a ${prefix} id: "${id}"`);
  }
  return id.slice(prefix.length + 1);
}

function hex(value: number, width: number): string {
  return Math.floor(value).toString(16).padStart(width, '0').slice(-width);
}
