import { bufferOf, type PromptBuffer } from '../input/prompt-buffer.js';
import type { SessionSnapshot } from '../session/session-watch.js';
import type { TuiServices } from '../tui-services.js';
import { renderUnifiedDiff } from '../render/diff.js';
import { filtered, type ListDialog, type ListItem } from './list-dialog.js';
import { TUI_COMMANDS } from '../input/slash-command-list.js';

/** What an action may read and change of the screen. */
export interface AppControls {
  services: TuiServices;
  snapshot: SessionSnapshot | undefined;
  sessionId: string | undefined;
  open(sessionId: string | undefined): void;
  dialog: ListDialog | undefined;
  setDialog(dialog: ListDialog | undefined): void;
  say(text: string, error?: boolean): void;
  fail(error: unknown): void;
  quit(): void;
  setBuffer(buffer: PromptBuffer): void;
  /** Puts a prompt that could not be sent back in the prompt box, unless something new was typed there. */
  restoreDraft(text: string): void;
  /** The agent the next prompt goes with. */
  agent: string;
  setAgent(agent: string): void;
  model: string | undefined;
  setModel(model: string | undefined): void;
  toggleDetails(): void;
  toggleThinking(): void;
  busy: boolean;
  /** Shows a prompt as queued until its run takes it. */
  queue(text: string): void;
}

const EXIT_WORDS = new Set(['exit', 'quit', ':q', '/exit', '/quit', '/q']);

/** Runs a keybind's action, a slash command or a prompt. Failures are said on the status row. */
export function runAction(action: string, controls: AppControls, argument?: string): void {
  void perform(action, controls, argument).catch(controls.fail);
}

async function perform(action: string, controls: AppControls, argument?: string): Promise<void> {
  const { services, sessionId, snapshot, say } = controls;
  switch (action) {
    case 'submit':
      return submit(argument ?? '', controls);
    case 'interrupt': {
      if (!sessionId) return;
      say(`Cancelling ${sessionId} and its subagents …`);
      const outcome = await services.actions.cancel(sessionId);
      say(outcome === 'not-running' ? `${sessionId} had no run to cancel.` : `Cancelled ${sessionId}.`);
      return;
    }
    case 'agent_cycle':
    case 'agent_cycle_reverse': {
      const agents = services.primaryAgents.map((agent) => agent.name);
      if (!agents.length) return;
      const at = agents.indexOf(controls.agent);
      const step = action === 'agent_cycle' ? 1 : -1;
      const next = agents[(at + step + agents.length) % agents.length];
      controls.setAgent(next);
      say(`Agent: ${next} (for the next prompt)`);
      return;
    }
    case 'session_child_cycle':
    case 'session_child_cycle_reverse':
      return cycleChildren(controls, action === 'session_child_cycle' ? 1 : -1);
    case 'session_parent': {
      const parent = snapshot?.session?.parentID;
      if (!parent) return say('This session has no parent: it is a root session.');
      return controls.open(parent);
    }
    case 'session_child_first':
      return openChildrenDialog(controls);
    case 'session_list':
      return openSessionsDialog(controls);
    case 'session_new':
      controls.open(undefined);
      return say('New session: your first prompt starts it.');
    case 'model_list':
      return controls.setDialog({
        kind: 'models',
        title: 'Model for the next prompt',
        items: services.models().map((model) => ({ id: model, label: model })),
        filter: '',
        index: 0,
      });
    case 'agent_list':
      return controls.setDialog({
        kind: 'agents',
        title: 'Agent for the next prompt',
        items: services.primaryAgents.map((agent) => ({
          id: agent.name,
          label: agent.name,
          detail: agent.description,
        })),
        filter: '',
        index: 0,
      });
    case 'messages_undo':
      return withSession(controls, async (id) => {
        const prompt = lastPrompt(controls.snapshot);
        say(await services.commands.undo(id));
        // As in OpenCode: the undone turn's prompt comes back to edit and send again.
        if (prompt) controls.setBuffer(bufferOf(prompt));
      });
    case 'messages_redo':
      return withSession(controls, async (id) => say(await services.commands.redo(id)));
    case 'session_compact':
      return withSession(controls, async (id) => say(await services.commands.compact(id)));
    case 'session_fork':
      return withSession(controls, async (id) => {
        const forked = await services.commands.fork(id);
        controls.open(forked);
        say(`Forked ${id} into ${forked}: this is the fork.`);
      });
    case 'session_export':
      return withSession(controls, async (id) =>
        say(`Exported to ${await services.commands.export(id, services.directory)}`),
      );
    case 'session_diff':
      return withSession(controls, async (id) => {
        const { text, summary } = await services.commands.diff(id);
        controls.setDialog({
          kind: 'text',
          title: `Changes of ${id}: ${summary}`,
          items: [],
          filter: '',
          index: 0,
          lines: text ? renderUnifiedDiff(text, { width: 200, maxLines: 5_000 }) : [],
        });
      });
    case 'status_view':
      return controls.setDialog({
        kind: 'text',
        title: 'Status',
        items: [],
        filter: '',
        index: 0,
        lines: await services.statusLines(),
      });
    case 'tool_details':
      return controls.toggleDetails();
    case 'display_thinking':
      return controls.toggleThinking();
    case 'help':
    case 'command_list':
      return controls.setDialog({
        kind: 'text',
        title: 'Commands and keys',
        items: [],
        filter: '',
        index: 0,
        lines: helpLines(services.keybindLabels()),
      });
    case 'dialog_pick':
      return pick(controls);
    default:
      return;
  }
}

async function submit(text: string, controls: AppControls): Promise<void> {
  const { services, say } = controls;
  const trimmed = text.trim();
  if (EXIT_WORDS.has(trimmed)) return controls.quit();
  const slash = /^\/(\S+)\s*$/.exec(trimmed)?.[1];
  const own = slash ? SLASH_ACTIONS[slash] : undefined;
  if (own) return perform(own, controls);
  const session = controls.snapshot?.session;
  if (controls.sessionId && !session) return say(`Session ${controls.sessionId} is not in the store.`, true);
  let id: string;
  try {
    id = await services.actions.send(session, text, {
      agent: controls.agent === session?.agent ? undefined : controls.agent,
      model: controls.model,
    });
  } catch (error) {
    // Nothing was sent: the draft comes back, to fix and send again.
    controls.restoreDraft(text);
    throw error;
  }
  if (controls.busy) controls.queue(trimmed);
  if (!controls.sessionId) controls.open(id);
}

const KEYS_EXPLAINED: [string, string][] = [
  ['input_submit', 'send the prompt (a busy session queues it)'],
  ['input_newline', 'new line in the prompt'],
  ['agent_cycle', 'next primary agent'],
  ['session_child_cycle', 'next subagent session (from a parent: its first)'],
  ['session_child_cycle_reverse', 'previous subagent session'],
  ['session_parent', 'the parent session'],
  ['session_child_first', 'list the subagents'],
  ['session_list', 'sessions of this project'],
  ['session_new', 'new session'],
  ['model_list', 'pick the model'],
  ['session_interrupt', 'twice: cancel the turn and its subagents'],
  ['messages_undo', 'undo the last turn'],
  ['messages_redo', 'redo it'],
  ['tool_details', 'tool output in full'],
  ['display_thinking', "the model's thinking"],
  ['messages_page_up', 'scroll up (page down scrolls back)'],
  ['app_exit', 'quit (ctrl+c: clear, cancel, then quit); the run goes on'],
];

function helpLines(labels: (action: string) => string): string[] {
  const keys = KEYS_EXPLAINED.filter(([action]) => labels(action)).map(
    ([action, what]) => `${labels(action).padEnd(34)} ${what}`,
  );
  const commands = TUI_COMMANDS.map((command) => `/${command.name.padEnd(33)} ${command.description}`);
  return [
    'Keys',
    ...keys,
    '',
    'Commands (any other /name goes to the session, as its command)',
    ...commands,
    '',
    'Approvals: a allows once, A always, r rejects (with a message)',
  ];
}

/** The TUI's own slash commands, by name, and the action each runs; any other `/…` goes to the session as a prompt. */
const SLASH_ACTIONS: Record<string, string> = {
  new: 'session_new',
  clear: 'session_new',
  sessions: 'session_list',
  resume: 'session_list',
  continue: 'session_list',
  undo: 'messages_undo',
  redo: 'messages_redo',
  fork: 'session_fork',
  compact: 'session_compact',
  summarize: 'session_compact',
  diff: 'session_diff',
  export: 'session_export',
  models: 'model_list',
  agents: 'agent_list',
  subagents: 'session_child_first',
  details: 'tool_details',
  thinking: 'display_thinking',
  status: 'status_view',
  help: 'help',
};

/** The text of the last prompt shown (not one an undo already hid). */
function lastPrompt(snapshot: SessionSnapshot | undefined): string | undefined {
  const from = snapshot?.session?.revert?.messageID;
  const users = (snapshot?.entries ?? []).filter(
    (entry) => entry.message.role === 'user' && (!from || entry.message.id < from),
  );
  const parts = users.at(-1)?.parts ?? [];
  const text = parts.flatMap((part) => (part.type === 'text' && !part.synthetic ? [part.text] : [])).join('\n');
  return text || undefined;
}

async function withSession(controls: AppControls, work: (sessionId: string) => Promise<void>): Promise<void> {
  if (!controls.sessionId) return controls.say('No session yet: send a prompt first.', true);
  await work(controls.sessionId);
}

/** From a session with subagents, the first (or last) of them; from a subagent's, its next (or previous) sibling. */
async function cycleChildren(controls: AppControls, step: 1 | -1): Promise<void> {
  const { snapshot, services } = controls;
  const session = snapshot?.session;
  if (!session) return;
  if (snapshot.children.length) {
    const children = snapshot.children;
    return controls.open(children[step === 1 ? 0 : children.length - 1].session.id);
  }
  if (!session.parentID) return controls.say('This session has started no subagents.');
  const siblings = await services.context.store.children(session.parentID);
  const at = siblings.findIndex((sibling) => sibling.id === session.id);
  const next = siblings[(at + step + siblings.length) % siblings.length];
  if (next && next.id !== session.id) controls.open(next.id);
  else controls.say('This subagent has no siblings.');
}

function openChildrenDialog(controls: AppControls): void {
  const children = controls.snapshot?.children ?? [];
  if (!children.length) return controls.say('This session has started no subagents.');
  controls.setDialog({
    kind: 'children',
    title: 'Subagents of this session',
    items: children.map(({ session, tokens }) => ({
      id: session.id,
      label: `@${session.agent} ${session.title}`,
      detail: `${session.status} · ${tokens.toLocaleString('en-US')} tokens · ${session.id}`,
      busy: session.status === 'busy',
    })),
    filter: '',
    index: 0,
  });
}

async function openSessionsDialog(controls: AppControls): Promise<void> {
  const { services } = controls;
  const sessions = await services.context.store.listSessions({
    roots: true,
    directory: services.directory,
    limit: 500,
  });
  const items: ListItem[] = [...sessions]
    .sort((a, b) => b.time.updated - a.time.updated)
    .map((session) => ({
      id: session.id,
      label: session.title,
      detail: `${session.agent} · ${new Date(session.time.updated).toISOString().slice(0, 16).replace('T', ' ')} · ${session.id}`,
      busy: session.status === 'busy',
    }));
  controls.setDialog({ kind: 'sessions', title: 'Sessions of this project', items, filter: '', index: 0 });
}

function pick(controls: AppControls): void {
  const { dialog } = controls;
  if (!dialog) return;
  const items = filtered(dialog);
  const item = items[Math.min(dialog.index, items.length - 1)];
  controls.setDialog(undefined);
  if (!item) return;
  if (dialog.kind === 'sessions' || dialog.kind === 'children') return controls.open(item.id);
  if (dialog.kind === 'models') {
    controls.setModel(item.id);
    return controls.say(`Model: ${item.id} (for the next prompt)`);
  }
  if (dialog.kind === 'agents') {
    controls.setAgent(item.id);
    return controls.say(`Agent: ${item.id} (for the next prompt)`);
  }
}
