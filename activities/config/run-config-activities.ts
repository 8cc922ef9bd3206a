import { ApplicationFailure } from '@temporalio/common';
import { defaultAgentName, findAgent } from '../../core/agents/resolve.js';
import { type AgentInfo } from '../../core/agents/agent.js';
import { parseModelId } from '../../core/models/model-id.js';
import { modelInfo } from '../../core/models/model-info.js';
import { disabled, merge, type Ruleset } from '../../core/rules/permission.js';
import type { RunConfig } from '../../core/runs/run.js';
import { budgetOfLimits, unpricedModelMessage, type Budget } from '../../core/runs/budget.js';
import { budgetStanding } from '../budget/standing.js';
import { toolSpecs } from '../../core/tools/index.js';
import { visibleSkills } from '../../core/tools/skill.js';
import { ConfigError } from './load.js';
import { recordWorkspaceConfig, workspaceConfigId, type WorkspaceConfigRecord } from './workspace-config.js';
import type { LoomConfig } from '../../core/config/config.js';
import type { ActivityDeps } from '../deps.js';
import { projectMcpTools } from '../mcp/project-tools.js';
import { rootSessionOf } from '../session/session-root.js';
import { newSession } from '../session/session-activities.js';
import { warnInWorkerLog, warnOnceInWorkerLog } from '../process/worker-log.js';
import type { ConfigFilesRecord } from './files.js';
import { configuredModel, NO_MODEL, projectAgents } from './project-agents.js';
import { projectConfigForRun } from './trust.js';
import { fetchRulesUrls } from './rules.js';
import { commandsOf } from '../../core/config/built-in-commands.js';
import { errorMessage } from '../../core/text/error-message.js';

const DEFAULT_DOOM_LOOP_THRESHOLD = 3;

const DEFAULT_SUBAGENT_DEPTH = 1;
const DEFAULT_MAX_CONCURRENT_SUBAGENTS = 8;

interface RunInput {
  sessionId: string;
  parentId?: string;
  directory: string;
  agent?: string;
  model?: string;
  sessionRules?: Ruleset;
  /** A new budget for the session's tree (`--max-tokens`, `--max-cost`). */
  budget?: Budget;
  /** A person started the run (not an agent's work): their own edits of the config files are taken. */
  byPerson?: boolean;
}

export function createRunConfigActivities({ store, env, dataDir }: ActivityDeps) {
  /** The project's config files for the run: as they are, or as a person last trusted them (trust.ts). */
  async function projectFiles(input: RunInput): Promise<ConfigFilesRecord> {
    const chosen = await projectConfigForRun(store, input.directory, env, {
      byPerson: input.byPerson === true,
      sessionId: input.sessionId,
    });
    if (chosen.unconfirmed)
      warnOnceInWorkerLog(
        `Session ${input.sessionId} runs with the configuration a person last trusted in ${input.directory}: ` +
          `${chosen.unconfirmed.files.join(', ')} changed during an agent's work and wait for a person (loom config trust)`,
        { againAfterMs: 60_000 },
      );
    return chosen.record;
  }

  /**
   * Decides, from the configuration, what a run works with: its agent and that agent's rules,
   * the model, the tools it may be offered, and the session tree's approvals so far.
   */
  async function prepareRun(input: RunInput): Promise<RunConfig> {
    // Outside `decide`: a store hiccup is retried, not a config error.
    const project = await projectFiles(input);
    const { run, record } = await decide(input, project);
    // What the project's folders hold travels to model calls through the store: they may run on
    // a worker without the workspace. (Outside `decide`: a store hiccup is retried, not a config error.)
    await store.saveWorkspaceConfig(run.workspaceConfigId!, record);
    return run;
  }

  async function decide(
    input: RunInput,
    project: ConfigFilesRecord,
  ): Promise<{ run: RunConfig; record: WorkspaceConfigRecord }> {
    try {
      const taken = recordWorkspaceConfig(input.directory, env, project);
      const { config, skillProblems } = taken;
      // A broken skill file is skipped, not fatal: the run goes on, and the worker's log says why.
      for (const problem of skillProblems) warnInWorkerLog(`Skipped a skill: ${problem.message}`);
      // The rules `instructions` names by URL are fetched once, here, for every step of the run.
      const fetched = await fetchRulesUrls(taken.ruleUrls);
      const rulesFiles = [...(taken.record.rules ?? []), ...fetched.rules];
      // A rules file that is not there, or a URL that does not answer, is said once; the run goes on without it.
      for (const problem of [...taken.ruleProblems, ...fetched.problems])
        warnOnceInWorkerLog(`Skipped a rules file: ${problem}`);
      // This runs on the workspace's host, where local MCP servers run: their tools travel with the record.
      const mcpTools = await projectMcpTools(config, input.directory, env);
      const record: WorkspaceConfigRecord = {
        ...taken.record,
        ...(rulesFiles.length ? { rules: rulesFiles } : {}),
        ...(mcpTools.length ? { mcpTools } : {}),
      };
      const toolNames = [...Object.keys(toolSpecs), ...mcpTools.map((tool) => tool.name)];
      const agents = projectAgents(config, dataDir);
      const session = await store.getSession(input.sessionId);
      const agent = findAgent(agents, input.agent ?? session?.agent ?? defaultAgentName(agents, config));
      const model = input.model ?? agent.model ?? session?.model ?? configuredModel(config, env);
      if (!model) throw new ConfigError(NO_MODEL);
      parseModelId(model);
      const rootId = await rootSessionOf(store, session ? input.sessionId : (input.parentId ?? input.sessionId));
      const sessionRules = input.sessionRules ?? session?.permission ?? [];
      const rules = merge(agent.permission, sessionRules);
      const hidden = disabled(toolNames, rules);
      // `skill` is offered only when there is a skill the agent may load.
      if (visibleSkills(record.skills ?? [], rules).length === 0) hidden.add('skill');
      // Only a session that may delegate has subagents to ask about.
      if (hidden.has('task')) hidden.add('task_status');
      const run: RunConfig = {
        agent: { name: agent.name, mode: agent.mode, steps: agent.steps, permission: agent.permission },
        model,
        tools: toolNames.filter((tool) => !hidden.has(tool)),
        sessionRules,
        approved: await store.approvedRules(rootId),
        rootId,
        doomLoopThreshold: config.doom_loop_threshold ?? DEFAULT_DOOM_LOOP_THRESHOLD,
        hostWaitMs: config.host_wait ? config.host_wait * 1000 : undefined,
        permissionTimeoutMs: config.permission_timeout ? config.permission_timeout * 1000 : undefined,
        depth: await depthOf(session ? session.parentID : input.parentId),
        subagentDepth: config.subagent_depth ?? DEFAULT_SUBAGENT_DEPTH,
        maxConcurrentSubagents: config.max_concurrent_subagents ?? DEFAULT_MAX_CONCURRENT_SUBAGENTS,
        subagents: agents.map((candidate) => ({
          name: candidate.name,
          mode: candidate.mode,
          model: candidate.model,
          // As OpenCode: a rule naming `task` itself (not `*`) lets a subagent delegate further.
          hasTaskRule: candidate.permission.some((rule) => rule.permission === 'task'),
          ...(candidate.timeout !== undefined ? { timeout: candidate.timeout } : {}),
        })),
        commands: Object.keys(commandsOf(config)),
        limit: modelInfo(config, model).limit,
        compaction: {
          auto: config.compaction?.auto ?? true,
          prune: config.compaction?.prune ?? true,
          reserved: config.compaction?.reserved,
        },
        lastStepTokens: session ? (await store.lastFinishedStep(input.sessionId))?.tokens : undefined,
        autoTitle: config.auto_title ?? true,
        snapshot: config.snapshot ?? true,
        primaryTools: config.experimental?.primary_tools ?? [],
        workspaceConfigId: workspaceConfigId(record),
        ...(await budgetsOfRun(input, session !== undefined, agent, config, model)),
      };
      return { run, record };
    } catch (error) {
      // A mistake in the configuration fails the run at once; anything else (the store restarting,
      // say) is retried like any activity failure.
      const message = errorMessage(error);
      const unknownAgent = /^Unknown agent/.test(message);
      if (!(error instanceof ConfigError) && !unknownAgent && !/^Invalid model/.test(message)) throw error;
      const type = unknownAgent ? 'UnknownAgent' : 'ConfigError';
      await keepUnopenedSession(input);
      throw ApplicationFailure.create({ type, message, nonRetryable: true });
    }
  }

  /**
   * A new session whose first run cannot start is still kept, failed, so the id the CLI printed
   * can be shown, listed and resumed once the configuration is fixed (`finishRun` records why).
   */
  async function keepUnopenedSession(input: RunInput): Promise<void> {
    if (await store.getSession(input.sessionId)) return;
    await store.saveSession(
      newSession({ ...input, agent: input.agent ?? 'build', model: input.model ?? '' }, 'failed', Date.now()),
    );
  }

  /**
   * The budget the run gives its session (its own, or a new session's from the agent's or loom.json's
   * `limits`), and whether any budget covers it. A cost budget needs the model's prices.
   */
  async function budgetsOfRun(
    input: RunInput,
    exists: boolean,
    agent: AgentInfo,
    config: LoomConfig,
    model: string,
  ): Promise<Pick<RunConfig, 'budget' | 'budgeted'>> {
    const budget =
      input.budget ??
      (exists ? undefined : (agent.limits ?? (input.parentId ? undefined : budgetOfLimits(config.limits))));
    const over = await budgetStanding(store, exists ? input.sessionId : (input.parentId ?? input.sessionId));
    const costed = [...(budget ? [{ owner: input.sessionId, budget }] : []), ...over.lines].find(
      (line) => line.budget.cost !== undefined,
    );
    if (costed && !modelInfo(config, model).cost) throw new ConfigError(unpricedModelMessage(model, costed.owner));
    if (!budget && over.lines.length === 0) return {};
    return { budgeted: true, ...(budget ? { budget } : {}) };
  }

  /** How many ancestors a session with this parent has. */
  async function depthOf(parentId: string | undefined): Promise<number> {
    let depth = 0;
    for (let id = parentId; id; id = (await store.getSession(id))?.parentID) depth++;
    return depth;
  }

  return { prepareRun };
}
