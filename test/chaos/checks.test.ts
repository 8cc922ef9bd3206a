import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import type { Part } from '../../core/records/part.js';
import { Checker } from '../../chaos/checks.js';
import { SIDE_EFFECTS_FILE, promptOf, stepsOf } from '../../chaos/script.js';

// The chaos checks must bite: a transcript as the script would leave it passes, and each kind of
// damage a fault could do is counted.
let root: string;
let store: SqliteSessionStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-chaos-checks-'));
  store = new SqliteSessionStore(join(root, 'loom.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

/** Writes the transcript a loop session ends with; `damage` may change the parts of each step first. */
async function loopSession(
  sessionId: string,
  tag: string,
  damage: (step: number, parts: Part[]) => Part[] = (_, parts) => parts,
) {
  const base = { agent: 'build', model: 'scripted/chaos' };
  await store.saveSession({
    id: sessionId,
    title: tag,
    directory: root,
    status: 'idle',
    time: { created: 1, updated: 1 },
    ...base,
  });
  await store.saveMessage({ id: `${sessionId}_m0`, sessionID: sessionId, role: 'user', time: { created: 1 }, ...base });
  await store.savePart({
    id: `${sessionId}_p0`,
    sessionID: sessionId,
    messageID: `${sessionId}_m0`,
    type: 'text',
    text: promptOf('loop', tag),
  });
  const steps = stepsOf('loop', tag);
  for (const [i, step] of steps.entries()) {
    const messageID = `${sessionId}_m${i + 1}`;
    const tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
    await store.saveMessage({
      id: messageID,
      sessionID: sessionId,
      role: 'assistant',
      parentID: `${sessionId}_m0`,
      step: i + 1,
      time: { created: 2 + i },
      tokens,
      cost: 0,
      ...base,
    });
    const parts: Part[] =
      'text' in step
        ? [{ id: `${messageID}_text`, sessionID: sessionId, messageID, type: 'text', text: step.text }]
        : step.tools.map((call, k) => ({
            id: `${messageID}_t${k}`,
            sessionID: sessionId,
            messageID,
            type: 'tool',
            callID: `${messageID}_call${k}`,
            tool: call.name,
            state: {
              status: 'completed',
              input: call.args,
              output: '',
              title: call.name,
              metadata: {},
              time: { start: 1, end: 2 },
            },
          }));
    for (const part of damage(i, parts)) await store.savePart(part);
  }
}

const sideEffects = (...lines: string[]) =>
  writeFileSync(join(root, SIDE_EFFECTS_FILE), lines.map((line) => `${line}\n`).join(''));

describe('the chaos checks', () => {
  it('pass a session that went as scripted', async () => {
    await loopSession('ses_good', 'L1');
    sideEffects('L1-a', 'L1-b');
    const checker = new Checker(store, 0);
    await checker.session('loop', 'L1', 'ses_good');
    checker.sideEffects(root);
    await checker.strays();
    expect(checker.findings).toMatchObject({
      sessions: 1,
      parts: 7,
      lost: 0,
      duplicated: 0,
      sideEffectsDuplicated: 0,
      sideEffectsRan: 2,
      stuck: 0,
      problems: [],
    });
  });

  it('count a lost step, a repeated tool call, a stray session and a side effect that ran twice', async () => {
    await loopSession('ses_bad', 'L2', (step, parts) => {
      if (step === 2) return []; // the read is gone
      if (step === 1) return [...parts, { ...parts[0], id: `${parts[0].id}_again` }]; // the bash call twice
      return parts;
    });
    await loopSession('ses_stray', 'L2');
    sideEffects('L2-a', 'L2-a', 'L2-b');
    const checker = new Checker(store, 0);
    await checker.session('loop', 'L2', 'ses_bad');
    checker.sideEffects(root);
    await checker.strays();
    const f = checker.findings;
    expect(f.lost).toBe(1);
    // The second bash part: one tool call too many, under a call id seen already; plus the stray session.
    expect(f.duplicated).toBe(3);
    expect(f.sideEffectsDuplicated).toBe(1);
    expect(f.problems.join('\n')).toMatch(/step 3 lacks read/);
    expect(f.problems.join('\n')).toMatch(/ses_stray .* belongs to no workload/);
  });

  it('count a session left busy as stuck, and a bash call that says it ran but left no trace as lost', async () => {
    await loopSession('ses_busy', 'L3');
    await store.setSessionStatus('ses_busy', 'busy', 3);
    sideEffects('L3-a');
    const checker = new Checker(store, 0);
    await checker.session('loop', 'L3', 'ses_busy');
    checker.sideEffects(root);
    expect(checker.findings).toMatchObject({ stuck: 1, lost: 1 });
  });
});
