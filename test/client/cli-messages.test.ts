import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { MessageWithParts } from '../../core/records/message.js';
import type { Part } from '../../core/records/part.js';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import type { Session } from '../../core/records/session.js';
import { answerHint, describeRequest } from '../../client/render/permission-request.js';
import { batchSpan, tasksPerSecond } from '../../client/render/batch-progress.js';
import { plural } from '../../client/render/quantities.js';
import { RunPrinter } from '../../client/render/run-printer.js';
import { renderSessionList, shortenHome } from '../../client/render/session-list.js';
import { renderSession } from '../../client/render/session-view.js';
import type { ToolPart } from '../../client/render/tool-call.js';
import { describeToolCall } from '../../core/tool-call/description.js';

// picocolors decides at load whether to colour; these tests read plain text either way.
const plain = stripVTControlCharacters;

function session(id: string, directory: string, overrides: Partial<Session> = {}): Session {
  return {
    id,
    title: `Title of ${id}`,
    agent: 'build',
    model: 'openai/gpt-4o',
    directory,
    status: 'idle',
    time: { created: 0, updated: 0 },
    ...overrides,
  };
}

describe('plural', () => {
  it.each([
    [0, 'step', '0 steps'],
    [1, 'step', '1 step'],
    [2, 'step', '2 steps'],
    [1234, 'token', '1,234 tokens'],
  ])('counts %s %s as "%s"', (count, noun, shown) => {
    expect(plural(count, noun)).toBe(shown);
  });
});

describe('loom ls lines', () => {
  const sessions = [session('ses_b', '/home/ada/src/app', { status: 'busy' }), session('ses_long_id', '/srv/other')];

  it('puts a header over aligned columns in a terminal, and none when piped', () => {
    const [header, first, second] = renderSessionList(sessions, { header: true }).map(plain);
    expect(header.split(/\s{2,}/)).toEqual(['ID', 'STATUS', 'AGENT', 'UPDATED', 'TITLE']);
    expect(first.indexOf('busy')).toBe(header.indexOf('STATUS'));
    expect(second.indexOf('Title of ses_long_id')).toBe(header.indexOf('TITLE'));
    expect(renderSessionList(sessions, { header: false }).map(plain)).toEqual([first, second]);
  });

  it('adds a directory column with the home folder as ~ for every project', () => {
    const lines = renderSessionList(sessions, { header: true, directories: { home: '/home/ada' } }).map(plain);
    expect(lines[0].split(/\s{2,}/)).toEqual(['ID', 'STATUS', 'AGENT', 'UPDATED', 'DIRECTORY', 'TITLE']);
    expect(lines[1]).toContain('~/src/app');
    expect(lines[2]).toContain('/srv/other');
  });

  it('shortens only the home folder and what is inside it', () => {
    expect(shortenHome('/home/ada', '/home/ada')).toBe('~');
    expect(shortenHome('/home/ada/x', '/home/ada/')).toBe('~/x');
    expect(shortenHome('/home/adam/x', '/home/ada')).toBe('/home/adam/x');
  });
});

describe('a subagent tool call, live and stored', () => {
  const child: ToolPart = {
    id: 'prt_child_glob',
    sessionID: 'ses_child',
    messageID: 'msg_child',
    type: 'tool',
    callID: 'call_glob',
    tool: 'glob',
    state: {
      status: 'completed',
      input: { pattern: '**/*.md', path: '.' },
      output: 'notes.md',
      title: '.',
      metadata: {},
      time: { start: 1, end: 2 },
    },
  };
  const task: Part = {
    id: 'prt_task',
    sessionID: 'ses_parent',
    messageID: 'msg_parent',
    type: 'tool',
    callID: 'call_task',
    tool: 'task',
    state: {
      status: 'completed',
      input: { description: 'Find docs', prompt: 'Find the docs.', subagent_type: 'explore' },
      output: 'found',
      title: 'Find docs',
      // As activities/session/task-progress.ts keeps it: each call described from its input.
      metadata: {
        sessionId: 'ses_child',
        summary: [
          {
            id: child.id,
            tool: 'glob',
            status: 'completed',
            title: '.',
            description: describeToolCall(child.tool, child.state.input),
          },
        ],
      },
      time: { start: 1, end: 3 },
    },
  };

  it('reads the same in the live follower and in loom show, under the task call', () => {
    let status = '';
    const printer = new RunPrinter({ write: () => undefined }, { write: (text: string) => (status += text) });
    printer.update({ cursor: 1, messages: [], parts: [task], removedParts: [], removedMessages: [] });
    const messages: MessageWithParts[] = [
      {
        info: {
          id: 'msg_parent',
          sessionID: 'ses_parent',
          role: 'user',
          agent: 'build',
          model: 'openai/gpt-4o',
          time: { created: 1 },
        },
        parts: [task],
      },
    ];
    const shown = plain(renderSession(session('ses_parent', '/p'), messages)).split('\n');
    expect(plain(status)).toContain('  ↳ ✓ glob **/*.md\n');
    const taskLine = shown.findIndex((line) => line.startsWith('✓ task explore · Find docs'));
    expect(shown[taskLine + 1]).toBe('  ↳ ✓ glob **/*.md');
  });
});

describe('batch throughput', () => {
  it('counts done and failed tasks over the time from the start to now, or to the end once it ended', () => {
    const running = batchSpan({ status: 'running', time: { created: 1_000, updated: 2_000 } });
    expect(tasksPerSecond({ done: 8, failed: 2 }, running, 6_000)).toBe(2);
    const ended = batchSpan({ status: 'completed', time: { created: 1_000, updated: 6_000 } });
    expect(tasksPerSecond({ done: 8, failed: 2 }, ended, 60_000)).toBe(2);
    expect(tasksPerSecond({ done: 0, failed: 0 }, running, 1_000)).toBe(0);
  });
});

describe('a permission request', () => {
  const request: PermissionRequestRecord = {
    id: 'per_1',
    sessionID: 'ses_child',
    rootID: 'ses_root',
    messageID: 'msg_1',
    partID: 'prt_1',
    callID: 'call_1',
    tool: 'bash',
    agent: 'general',
    permission: 'bash',
    patterns: ['echo built'],
    always: ['echo *'],
    title: 'bash · echo built',
    status: 'pending',
    time: { created: 0 },
  };

  it('names the root session of a subagent that asks, and the commands that answer it', () => {
    expect(describeRequest(request)).toContain('in session ses_child (general), subagent of ses_root · request per_1');
    expect(describeRequest({ ...request, sessionID: 'ses_root' })).toContain(
      'in session ses_root (general) · request per_1',
    );
    expect(answerHint(request)).toContain('loom approve per_1 (or --always)');
    expect(answerHint(request)).toContain('loom approve per_1 --reject');
  });
});
