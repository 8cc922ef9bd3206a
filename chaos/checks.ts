// What must hold after a chaos run, checked against the store and the workspace: each session's
// transcript has every scripted step once (nothing lost, nothing twice), bash side effects ran at
// most once, the batch did each task exactly once, every ask was answered, no run is left open.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { BatchRecords } from '../activities/store/batches.js';
import type { MessageRecords } from '../activities/store/messages.js';
import type { PermissionRecords } from '../activities/store/permissions.js';
import type { SessionRecords } from '../activities/store/sessions.js';
import type { Part } from '../core/records/part.js';
import { SIDE_EFFECTS_FILE, sideEffectTokens, stepsOf, type Step, type WorkloadKind } from './script.js';

export interface Findings {
  sessions: number;
  parts: number;
  lost: number;
  duplicated: number;
  toolCalls: number;
  /** Tool calls a kill interrupted (reported to the model as errors, not run again). */
  toolErrors: number;
  sideEffectsExpected: number;
  sideEffectsRan: number;
  sideEffectsDuplicated: number;
  batchTasks: number;
  batchDoneOnce: number;
  asks: number;
  asksAnswered: number;
  stuck: number;
  problems: string[];
}

export const emptyFindings = (): Findings => ({
  sessions: 0,
  parts: 0,
  lost: 0,
  duplicated: 0,
  toolCalls: 0,
  toolErrors: 0,
  sideEffectsExpected: 0,
  sideEffectsRan: 0,
  sideEffectsDuplicated: 0,
  batchTasks: 0,
  batchDoneOnce: 0,
  asks: 0,
  asksAnswered: 0,
  stuck: 0,
  problems: [],
});

const PROBLEMS_KEPT = 50;
const TAG_OF = /chaos (?:loop|tree|child|ask|batch) (\S+):/;

export class Checker {
  readonly findings = emptyFindings();
  /** Sessions and runs left unfinished, by id (a run can be found open more than one way). */
  private readonly stuckIds = new Set<string>();
  private readonly partIds = new Set<string>();
  private readonly sessionIds = new Set<string>();
  /** Bash calls whose part says completed, by side-effect token. */
  private readonly completedEffects = new Set<string>();
  private readonly expectedEffects: string[] = [];

  constructor(
    private readonly store: BatchRecords & MessageRecords & PermissionRecords & SessionRecords,
    private readonly children: number,
  ) {}

  stuck(id: string) {
    this.stuckIds.add(id);
    this.findings.stuck = this.stuckIds.size;
  }

  problem(text: string) {
    if (this.findings.problems.length < PROBLEMS_KEPT) this.findings.problems.push(text);
  }

  /** A session and, for a tree, its children: every scripted step present, once. */
  async session(kind: WorkloadKind, tag: string, sessionId: string): Promise<void> {
    const f = this.findings;
    f.sessions++;
    this.sessionIds.add(sessionId);
    const steps = stepsOf(kind, tag, this.children);
    this.expectedEffects.push(...sideEffectTokens(steps));
    const where = `${kind} ${tag} (${sessionId})`;
    const session = await this.store.getSession(sessionId);
    if (!session) {
      f.lost += units(steps);
      return this.problem(`${where}: no session in the store`);
    }
    if (session.status !== 'idle') {
      this.stuck(sessionId);
      this.problem(`${where}: session status is ${session.status}, not idle`);
    }
    const messages = await this.store.messages(sessionId);
    const users = messages.filter((m) => m.info.role === 'user');
    const assistants = messages.filter((m) => m.info.role === 'assistant');
    if (users.length !== 1) {
      if (users.length) f.duplicated += users.length - 1;
      else f.lost++;
      this.problem(`${where}: ${users.length} user messages, expected 1`);
    }
    const callIds = new Set<string>();
    for (const message of messages) {
      for (const part of message.parts) {
        f.parts++;
        if (this.partIds.has(part.id)) {
          f.duplicated++;
          this.problem(`${where}: part ${part.id} appears twice`);
        }
        this.partIds.add(part.id);
        if (part.type !== 'tool') continue;
        if (callIds.has(part.callID)) {
          f.duplicated++;
          this.problem(`${where}: tool call ${part.callID} appears twice`);
        }
        callIds.add(part.callID);
      }
    }
    for (let i = 0; i < Math.max(steps.length, assistants.length); i++) {
      const step = steps[i];
      const parts = assistants[i]?.parts ?? [];
      if (!assistants[i]) {
        f.lost += units([step]);
        this.problem(`${where}: step ${i + 1} is missing`);
      } else if (!step) {
        f.duplicated += Math.max(1, parts.length);
        this.problem(`${where}: an extra assistant message (step ${i + 1} of ${steps.length}): ${describe(parts)}`);
      } else {
        this.step(where, i, step, parts);
      }
    }
    if (kind === 'tree') await this.children_(tag, sessionId, where);
  }

  private step(where: string, index: number, step: Step, parts: Part[]) {
    const f = this.findings;
    const tools = parts.filter((p) => p.type === 'tool');
    const texts = parts.filter((p) => p.type === 'text' && p.text.trim());
    const expectedTools = 'tools' in step ? step.tools.map((call) => call.name) : [];
    const actualTools = tools.map((p) => p.tool);
    const missing = [...expectedTools];
    let extra = 0;
    for (const name of actualTools) {
      const at = missing.indexOf(name);
      if (at >= 0) missing.splice(at, 1);
      else extra++;
    }
    if (missing.length) {
      f.lost += missing.length;
      this.problem(`${where}: step ${index + 1} lacks ${missing.join(', ')} (has ${describe(parts)})`);
    }
    if (extra) {
      f.duplicated += extra;
      this.problem(`${where}: step ${index + 1} has ${extra} tool call(s) too many (${describe(parts)})`);
    }
    for (const tool of tools) {
      f.toolCalls++;
      if (tool.state.status === 'error') f.toolErrors++;
      else if (tool.state.status !== 'completed') {
        f.lost++;
        this.problem(`${where}: ${tool.tool} call ${tool.callID} was left ${tool.state.status}`);
      }
      if (tool.tool === 'bash' && tool.state.status === 'completed') {
        const token = /^echo (\S+) >>/.exec(String((tool.state.input as { command?: string })?.command ?? ''))?.[1];
        if (token) this.completedEffects.add(token);
      }
    }
    const wantText = 'text' in step ? 1 : 0;
    if ('text' in step && !texts.some((p) => p.type === 'text' && p.text === step.text)) {
      f.lost++;
      this.problem(`${where}: the final answer ${JSON.stringify(step.text)} is missing (has ${describe(parts)})`);
    }
    if (texts.length > wantText) {
      f.duplicated += texts.length - wantText;
      this.problem(`${where}: step ${index + 1} has ${texts.length} text parts, expected ${wantText}`);
    }
  }

  /** A tree's children: one session per `task` call, each checked like any session. */
  private async children_(tag: string, sessionId: string, where: string) {
    const children = await this.store.children(sessionId);
    const seen = new Map<string, number>();
    for (const child of children) {
      const first = (await this.store.messages(child.id)).find((m) => m.info.role === 'user');
      const text = first?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';
      const childTag = TAG_OF.exec(text)?.[1];
      if (!childTag) {
        this.findings.duplicated++;
        this.problem(`${where}: child ${child.id} has no scripted prompt`);
        continue;
      }
      seen.set(childTag, (seen.get(childTag) ?? 0) + 1);
      await this.session('child', childTag, child.id);
    }
    // The parent's task calls, by the child each one asked for: what became of it.
    const calls = new Map<string, string>();
    for (const message of await this.store.messages(sessionId)) {
      for (const part of message.parts) {
        if (part.type !== 'tool' || part.tool !== 'task') continue;
        const childTag = TAG_OF.exec(String((part.state.input as { prompt?: string })?.prompt ?? ''))?.[1];
        const state = part.state;
        if (childTag)
          calls.set(childTag, state.status === 'error' ? `error: ${state.error.slice(0, 200)}` : state.status);
      }
    }
    for (let k = 0; k < this.children; k++) {
      const count = seen.get(`${tag}-${k}`) ?? 0;
      if (count === 0) {
        this.findings.lost += units(stepsOf('child', `${tag}-${k}`));
        this.problem(
          `${where}: child ${tag}-${k} has no session (its task call: ${calls.get(`${tag}-${k}`) ?? 'none'})`,
        );
      } else if (count > 1) {
        this.findings.duplicated += count - 1;
        this.problem(`${where}: child ${tag}-${k} has ${count} sessions`);
      }
    }
  }

  /** The batch: completed, every task completed exactly once in a session of its own. */
  async batch(batchId: string, total: number, outcome: string) {
    const f = this.findings;
    f.batchTasks = total;
    if (outcome !== 'completed') this.problem(`batch ${batchId}: its run ended ${outcome}`);
    const batch = await this.store.getBatch(batchId);
    if (batch?.status !== 'completed')
      this.problem(`batch ${batchId}: status ${batch?.status ?? 'missing'}, not completed`);
    const tasks = await this.store.batchTasks(batchId);
    const sessions = new Set<string>();
    for (const { task, outcome: result } of tasks) {
      const tag = TAG_OF.exec(task.prompt)?.[1] ?? `#${result.index}`;
      const once =
        result.status === 'completed' && result.attempts === 1 && !!result.sessionId && !sessions.has(result.sessionId);
      if (result.sessionId) sessions.add(result.sessionId);
      if (once) f.batchDoneOnce++;
      else
        this.problem(
          `batch task ${tag}: ${result.status} after ${result.attempts} attempt(s)${result.error ? `: ${result.error}` : ''}`,
        );
      if (result.sessionId) await this.session('batch', tag, result.sessionId);
      else f.lost += units(stepsOf('batch', tag));
    }
    if (tasks.length !== total) {
      f.lost += Math.max(0, total - tasks.length);
      this.problem(`batch ${batchId}: ${tasks.length} tasks stored, expected ${total}`);
    }
  }

  /** An ask session: exactly one request, answered. */
  async ask(sessionId: string, tag: string, answerError: string | undefined) {
    const f = this.findings;
    f.asks++;
    const requests = (await this.store.permissionRequests()).filter((r) => r.sessionID === sessionId);
    if (answerError) this.problem(`ask ${tag}: could not be answered: ${answerError}`);
    else f.asksAnswered++;
    if (requests.length !== 1) {
      f.duplicated += Math.max(0, requests.length - 1);
      this.problem(`ask ${tag}: ${requests.length} permission requests, expected 1`);
    }
    for (const request of requests)
      if (request.status !== 'approved') this.problem(`ask ${tag}: request ${request.id} is ${request.status}`);
  }

  /** The side-effect log: no token twice, and every bash call that says it ran did run. */
  sideEffects(project: string) {
    const f = this.findings;
    const counts = new Map<string, number>();
    for (const line of readFileSync(join(project, SIDE_EFFECTS_FILE), 'utf8').split('\n')) {
      if (line.trim()) counts.set(line.trim(), (counts.get(line.trim()) ?? 0) + 1);
    }
    f.sideEffectsExpected = this.expectedEffects.length;
    for (const token of this.expectedEffects) {
      const count = counts.get(token) ?? 0;
      if (count > 0) f.sideEffectsRan++;
      if (count > 1) {
        f.sideEffectsDuplicated++;
        this.problem(`side effect ${token} happened ${count} times`);
      }
      if (count === 0 && this.completedEffects.has(token)) {
        f.lost++;
        this.problem(`side effect ${token}: its bash call says completed, but it is not in ${SIDE_EFFECTS_FILE}`);
      }
    }
  }

  /** Sessions in the store that no workload accounts for: a task or a child started twice. */
  async strays() {
    for (const session of await this.store.listSessions()) {
      if (this.sessionIds.has(session.id)) continue;
      this.findings.duplicated++;
      this.problem(`session ${session.id} (${session.title}) belongs to no workload`);
    }
  }

  /** Runs still open on the task queue once everything should have finished. */
  async openRuns(client: Client, taskQueue: string) {
    const open: string[] = [];
    for await (const run of client.workflow.list({
      query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`,
    }))
      open.push(run.workflowId);
    for (const id of open) this.stuck(id);
    if (open.length) this.problem(`${open.length} run(s) still open: ${open.slice(0, 10).join(', ')}`);
  }
}

/** What a step is worth in the lost/duplicated counts: its tool calls, or its answer. */
function units(steps: Step[]): number {
  return steps.reduce((sum, step) => sum + ('tools' in step ? step.tools.length : 1), 0);
}

function describe(parts: Part[]): string {
  return (
    parts
      .map((p) =>
        p.type === 'tool'
          ? `${p.tool}:${p.state.status}`
          : p.type === 'text'
            ? `text ${JSON.stringify(p.text.slice(0, 30))}`
            : p.type,
      )
      .join(', ') || 'nothing'
  );
}
