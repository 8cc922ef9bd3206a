import type { ClientContext } from '../../context.js';
import { InputError } from '../../input-error.js';
import type { Session } from '../../../core/records/session.js';
import type { PermissionReply } from '../../../core/rules/permission-request.js';
import { budgetBeforeResume } from '../../services/budgets.js';
import {
  checkModelFlag,
  checkProviderHere,
  chooseModel,
  modelRetryFromEnv,
  reportMissingKey,
} from '../../services/model-choice.js';
import { createEmptySession } from '../../services/new-session.js';
import { chooseAgent, loadPersonProject, type ProjectAgents } from '../../services/project-agents.js';
import { checkPromptSize, promptLimit } from '../../services/sent-prompts.js';
import type { CancelOutcome } from '../../services/sessions.js';

/** What a prompt goes with: the agent picked (Tab), a model picked (<leader>m), if any. */
export interface PromptChoice {
  agent?: string;
  model?: string;
}

/**
 * What the terminal UI does to sessions (the services that talk to Temporal are loaded when first
 * used: Temporal's client takes a quarter of a second of the first screen otherwise), through the services `loom run`, `loom resume`, the
 * server and ACP use: a prompt goes to a session as `loom resume` sends one (an idle session
 * starts a run, a busy one queues it); a new session is created empty, as ACP's `session/new`
 * does, and takes its first prompt the same way.
 */
export class SessionActions {
  constructor(
    private readonly context: ClientContext,
    readonly directory: string,
  ) {}

  /** The project's agents and configuration, as a run a person starts here sees them. */
  async project(directory = this.directory): Promise<ProjectAgents> {
    const { context } = this;
    return loadPersonProject(context.store, directory, context.env, context.settings.dataDir);
  }

  /** Sends a prompt to a session, or to a new one in the project when `session` is undefined; the session's id. */
  async send(session: Session | undefined, text: string, choice: PromptChoice): Promise<string> {
    const { context } = this;
    const project = await this.project(session?.directory);
    const maxPromptBytes = promptLimit(context.env, project.config);
    checkPromptSize(text, maxPromptBytes, session ? `session ${session.id}` : undefined);
    const picked = checkModelFlag(choice.model);
    const agent = choice.agent ? chooseAgent(choice.agent, project) : undefined;
    const newAgent = agent ?? project.defaultAgent;
    const model = session ? picked : (picked ?? chooseModel(undefined, newAgent, project, context.env));
    const missingKey = checkProviderHere(model ?? session!.model, project.config, context.env);
    const { client, searchAttributes } = await context.temporal();
    await context.ensureWorker();
    reportMissingKey(context, missingKey);
    const target =
      session ??
      (await createEmptySession(context.store, {
        agent: newAgent,
        model: model!,
        directory: this.directory,
        host: context.hostId,
      }));
    const spent = await budgetBeforeResume(context.store, target.id, undefined, { tokens: 'tokens', cost: 'cost' });
    if (spent) throw new InputError(spent);
    const { cancellingRun } = await import('../../services/cancelled-prompts.js');
    const { resumeSession } = await import('../../services/sessions.js');
    // A run being cancelled would drop a prompt queued into it: the prompt waits for that run to close.
    const closing = await cancellingRun(client, target.id);
    if (closing)
      await client.workflow
        .getHandle(target.id, closing)
        .result()
        .catch(() => undefined);
    await resumeSession(client, context.store, target, {
      prompt: text,
      maxPromptBytes,
      agent: agent === target.agent ? undefined : agent,
      model: session ? picked : undefined,
      host: context.hostId,
      taskQueue: context.settings.taskQueue,
      modelRetry: modelRetryFromEnv(context.env),
      webUrl: context.settings.webUrl,
      searchAttributes,
    });
    return target.id;
  }

  /** Cancels the session's run and, below it, its busy subagents. */
  async cancel(sessionId: string): Promise<CancelOutcome> {
    const { client } = await this.context.temporal();
    const { cancelSession } = await import('../../services/sessions.js');
    return cancelSession(client, sessionId, this.context.store);
  }

  async reply(reply: PermissionReply): Promise<void> {
    const { client } = await this.context.temporal();
    const { replyToRequest } = await import('../../services/permissions.js');
    await replyToRequest(client, this.context.store, reply);
  }
}
