import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import type { ToolContext } from '../../activities/tools/running/tool-handler.js';

export interface ToolTestContext extends ToolContext {
  /** Progress the handler reported through `update`. */
  updates: { title?: string; metadata?: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** A context for calling tool handlers directly: a real store and data folder in a temp dir. */
export function createToolContext(directory: string, overrides: Partial<ToolContext> = {}): ToolTestContext {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-tool-data-'));
  const store = new SqliteSessionStore(join(dataDir, 'loom.db'));
  const updates: ToolTestContext['updates'] = [];
  return {
    directory,
    dataDir,
    sessionId: 'ses_tooltest',
    messageId: 'msg_tooltest',
    callId: 'call_tooltest',
    model: 'scripted/test-model',
    config: {},
    store,
    env: process.env,
    abort: new AbortController().signal,
    update: (progress) => void updates.push(progress),
    updates,
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    ...overrides,
  };
}
