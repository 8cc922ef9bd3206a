import type { ClientContext } from '../context.js';
import type { LoomConfig } from '../../core/config/config.js';
import { modelInfo } from '../../core/models/model-info.js';
import { catalogueModels } from '../../core/models/model-catalogue.js';
import type { AgentInfo } from '../../core/agents/agent.js';
import { temporalUiUrl } from '../../worker/connection/ui.js';
import { SessionActions } from './session/session-actions.js';
import { SessionCommands } from './session/session-commands.js';
import type { FooterFacts, WorkerState } from './components/footer-lines.js';
import type { ProjectAgents } from '../services/project-agents.js';
import { chooseModel } from '../services/model-choice.js';
import { listProjectFiles } from './input/project-files.js';
import { keybindLabel, resolveKeybinds, type KeybindName, type Keybinds } from './input/keybinds.js';
import { slashCommandChoices, TUI_COMMANDS, type SlashCommandChoice } from './input/slash-command-list.js';

/** How the screen was left: the command prints what goes on after it (a run still going, how to reopen). */
export interface QuitState {
  sessionId?: string;
  busy: boolean;
}

/**
 * What the screen's components reach the rest of Loom through: the client context (store,
 * Temporal, the worker), the session actions and commands, the project's agents and models, and
 * the lines Loom reports (shown on the status row, not printed over the screen).
 */
export class TuiServices {
  readonly actions: SessionActions;
  readonly commands: SessionCommands;
  quitState: QuitState | undefined;
  private readonly reportListeners = new Set<(line: string, error: boolean) => void>();
  private readonly uiBase: string | undefined;

  constructor(
    readonly context: ClientContext,
    readonly directory: string,
    private project: ProjectAgents,
    readonly keybinds: Keybinds = resolveKeybinds(),
    namespace: string,
    uiBase: string | undefined,
  ) {
    this.actions = new SessionActions(context, directory);
    this.commands = new SessionCommands(context);
    this.uiBase = uiBase && `${uiBase}/namespaces/${encodeURIComponent(namespace)}/workflows`;
  }

  /** A report line from Loom (a worker starting, a retry); the status row shows it. */
  report(line: string, error = false): void {
    for (const listener of this.reportListeners) listener(line, error);
  }

  onReport(listener: (line: string, error: boolean) => void): () => void {
    this.reportListeners.add(listener);
    return () => this.reportListeners.delete(listener);
  }

  get defaultAgent(): string {
    return this.project.defaultAgent;
  }

  /** The agents Tab cycles through: the primary ones a person picks, the project's own included. */
  get primaryAgents(): AgentInfo[] {
    return this.project.agents.filter((agent) => agent.mode !== 'subagent' && !agent.hidden);
  }

  get config(): LoomConfig {
    return this.project.config;
  }

  /** Models to pick from: the configuration's, then the built-in catalogue's. */
  models(): string[] {
    const configured = Object.entries(this.project.config.provider ?? {}).flatMap(([provider, settings]) =>
      Object.keys(settings.models ?? {}).map((model) => `${provider}/${model}`),
    );
    return [
      ...new Set([
        ...(this.project.config.model ? [this.project.config.model] : []),
        ...configured,
        ...catalogueModels(),
      ]),
    ];
  }

  /** How a keybind reads (`ctrl+x n`), '' when unbound: for the help. */
  keybindLabels(): (action: string) => string {
    return (action) => keybindLabel(this.keybinds, action as KeybindName);
  }

  /** The `/` list: the TUI's own commands, then the project's. */
  slashCommands(): SlashCommandChoice[] {
    this.commandChoices ??= slashCommandChoices(this.project.config);
    return this.commandChoices;
  }

  isTuiCommand(name: string): boolean {
    return TUI_COMMANDS.some((command) => command.name === name || command.aliases?.includes(name));
  }

  /** The project's files for `@` (listed once, as the search tools see them: ignored files left out). */
  async projectFiles(): Promise<readonly string[]> {
    this.files ??= listProjectFiles(this.directory).then((listed) => listed.paths);
    return this.files;
  }

  private commandChoices: SlashCommandChoice[] | undefined;
  private files: Promise<readonly string[]> | undefined;

  async reloadProject(): Promise<void> {
    this.project = await this.actions.project();
  }

  footerFacts(agent: string, model: string | undefined, sessionId: string | undefined): FooterFacts {
    const shown =
      model ?? this.project.agents.find((candidate) => candidate.name === agent)?.model ?? this.defaultModel(agent);
    const window = shown ? modelInfo(this.project.config, shown).limit?.context : undefined;
    return {
      agent,
      model: shown || 'model: not chosen yet',
      contextWindow: window,
      worker: this.worker,
      runLink: this.uiBase && sessionId ? `${this.uiBase}/${sessionId}` : undefined,
    };
  }

  private worker: WorkerState = 'unknown';

  /** The model a new session of `agent` would get, or '' when none is set anywhere. */
  private defaultModel(agent: string): string {
    try {
      return chooseModel(undefined, agent, this.project, this.context.env);
    } catch {
      return '';
    }
  }

  /**
   * Whose worker serves the task queue: this process's, another (`loom worker`, a server), or none.
   * With none, or when the session's run waits on a worker that has gone, one starts in this
   * process, as `loom run` starts one, so the run goes on while the screen is open.
   */
  async workerState(sessionId?: string): Promise<WorkerState> {
    if (this.context.hasInProcessWorker) return (this.worker = 'here');
    const temporal = await this.context.temporalIfRunning();
    if (!temporal) return (this.worker = 'none');
    const { hasLiveWorker } = await import('../temporal/connect.js');
    const live = await hasLiveWorker(temporal.client, temporal.target.namespace, this.context.settings.taskQueue);
    const { waitsForWorker } = await import('../follow/unserved-run.js');
    const stranded =
      live && sessionId
        ? await waitsForWorker(temporal.client.workflow.getHandle(sessionId)).catch(() => false)
        : false;
    if (live && !stranded) return (this.worker = 'remote');
    if (stranded) this.report('The worker running this session has gone: running one in this process.');
    await this.context.ensureWorker(stranded);
    return (this.worker = this.context.hasInProcessWorker ? 'here' : 'remote');
  }

  /** Where this screen's sessions run, as `loom status` says it in short. */
  async statusLines(): Promise<string[]> {
    const { context } = this;
    const target = await context.target();
    const worker = await this.workerState().catch(() => 'unknown' as const);
    return [
      `Temporal     ${target.address} (namespace ${target.namespace})${target.embedded ? ', the embedded dev server' : ''}`,
      ...(this.uiBase ? [`Temporal UI  ${this.uiBase}`] : []),
      `Task queue   ${context.settings.taskQueue}`,
      `Worker       ${{ here: 'this process', remote: 'elsewhere (loom worker, loom serve)', none: 'none', unknown: 'unknown' }[worker]}`,
      `Store        ${context.settings.storeUrl ? 'PostgreSQL' : `SQLite in ${context.settings.dataDir}`}`,
      `Project      ${this.directory}`,
      `Host         ${context.hostId}`,
      '',
      '`loom status` says more.',
    ];
  }

  quitWith(state: QuitState): void {
    this.quitState = state;
  }

  static uiOf(target: Parameters<typeof temporalUiUrl>[0], env: NodeJS.ProcessEnv): string | undefined {
    return temporalUiUrl(target, env);
  }
}
