/**
 * Ids that sort by creation: `<prefix>_<12 hex ms><4 hex counter><10 base62 random>`.
 *
 * Time and randomness are passed in, so the same function serves workflows (whose `Date.now()`
 * and `Math.random` are replay-safe) and activities. Part ids are derived from their message id,
 * so a retried activity rewrites the same rows instead of adding new ones.
 */
export type IdPrefix = 'ses' | 'msg' | 'prt' | 'per' | 'bat' | 'prm';

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

/**
 * Where a workflow run draws its ids: the same on every attempt of a workflow task. A workflow's
 * `Date.now()` is the start of the current task, so a task that is tried again (its worker died
 * after its local activities wrote to the store) would draw other ids and store rows twice. Ids
 * from a sequence use the run's start time and a counter kept in workflow state instead; they
 * still sort by creation within a session, since a later run starts later.
 */
export interface IdSequence {
  /** The time part of the last id drawn. */
  time: number;
  counter: number;
}

export function idSequence(runStart: number): IdSequence {
  return { time: runStart, counter: -1 };
}

/** The next id of a sequence (which it advances); randomness must be replay-safe too. */
export function nextId(prefix: IdPrefix, sequence: IdSequence, random: () => number): string {
  sequence.counter++;
  if (sequence.counter > 0xffff) {
    sequence.time++;
    sequence.counter = 0;
  }
  let suffix = '';
  for (let i = 0; i < 10; i++) suffix += BASE62[Math.floor(random() * 62)];
  return `${prefix}_${hex(sequence.time, 12)}${hex(sequence.counter, 4)}${suffix}`;
}

/** The id of the `index`-th part of a message: sorts by message, then by index. */
export function partId(messageId: string, index: number): string {
  const body = idBody(messageId, 'msg');
  return `prt_${body.slice(0, 16)}${hex(index, 4)}${body.slice(16, 22)}`;
}

/**
 * An id derived from another (`ses_…` for the subagent a `task` call starts and `per_…` for its
 * `n`-th permission request, both from the call's part id; `prm_…` for a prompt Loom stores). It
 * depends on nothing but that id: calls that run at the same time in a workflow get the same ids
 * on replay, whatever order their awaits resolved in.
 */
export function derivedId(prefix: IdPrefix, fromId: string, n = 0): string {
  const body = idBody(fromId, fromId.slice(0, 3) as IdPrefix);
  return `${prefix}_${body.slice(0, 20)}${hex(n, 2)}${body.slice(22)}`;
}

/**
 * An id that a seed decides entirely (same seed, same id), with the given time part: for ids an
 * activity draws that must come out the same when the activity runs again.
 */
export function seededId(prefix: IdPrefix, time: number, seed: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < seed.length; i++) {
    a = Math.imul(a ^ seed.charCodeAt(i), 0x01000193) >>> 0;
    b = Math.imul(b ^ seed.charCodeAt(i), 0x5bd1e995) >>> 0;
  }
  let suffix = '';
  for (let i = 0; i < 10; i++) {
    const source = i < 5 ? a : b;
    suffix += BASE62[Math.floor(source / 62 ** (i % 5)) % 62];
  }
  return `${prefix}_${hex(time, 12)}${hex((a ^ b) & 0xffff, 4)}${suffix}`;
}

/** The id under which a batch task's prompt is stored for the sessions that run it. */
export function batchTaskPromptId(batchId: string, index: number): string {
  return `prm_${idBody(batchId, 'bat')}_${index}`;
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
