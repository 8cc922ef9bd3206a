import { ApplicationFailure } from '@temporalio/common';
import type { ModelStepInput, ModelStepResult } from '../../core/models/model-step.js';
import { preview } from '../../core/records/prompt.js';
import type { Ruleset } from '../../core/rules/permission.js';
import { checkToolCall } from '../../core/tool-call/check.js';
import { toolFinder } from '../../core/tools/index.js';
import { describeSkillTool } from '../../core/tools/skill.js';
import { describeTaskTool } from '../../core/tools/task.js';
import { workspaceConfig } from '../config/workspace-config.js';
import type { ConfigFilesRecord } from '../config/files.js';
import type { ActivityDeps } from '../deps.js';
import { openingAssistantMessage } from '../session/message-time.js';
import { configDir } from '../process/paths.js';
import { pluginChatParams } from '../plugins/chat-params.js';
import { PluginError, type ChatParams } from '../plugins/types.js';
import { costOf } from '../../core/models/cost.js';
import { modelInfo } from '../../core/models/model-info.js';
import { promptVariant, type PromptVariant } from '../../core/models/prompt-variant.js';
import { smallModelToolNames } from '../../core/tools/small-model.js';
import { buildModelRequest } from './model-request.js';
import { functionTools, smallModelTools } from './offered-tools.js';
import { planToolCalls } from './plan-tool-calls.js';
import { sandboxRefusals } from './sandbox-refusals.js';
import { resolveModel } from './provider.js';
import { streamIntoMessage } from './stream-answer.js';
import { TranscriptCache } from './transcript-cache.js';

const MAX_OUTPUT_TOKENS = 32_000;
/** A small model's answer cap when its configuration gives none: enough for a file of a few hundred lines. */
const SMALL_MODEL_OUTPUT_TOKENS = 4_096;

export function createModelActivities({ store, env, dataDir }: ActivityDeps) {
  const transcripts = new TranscriptCache(store);

  /**
   * One model call: reads the conversation from the store, streams the answer into the assistant
   * message's parts, and returns only what the loop needs.
   */
  async function callModel(input: ModelStepInput): Promise<ModelStepResult> {
    const message = await openingAssistantMessage(store, input);
    let agentRules: Ruleset = [];
    let refusedBefore = new Map<string, string>();
    let find = toolFinder();
    let offered = input.tools;
    const answer = await streamIntoMessage(store, message, async () => {
      // The project's config as its host read it: this worker may have no copy of the workspace.
      const { config, project, git, skills, mcpTools, entries, rules } = await workspaceConfig(store, env, input);
      find = toolFinder(mcpTools);
      const model = await resolveModel(input.model, config, env, { store });
      const variant = promptVariant(config, input.model);
      // A small model is offered only the tools it is told about; a call to another is refused as not offered.
      if (variant === 'small') offered = smallModelToolNames(input.tools);
      const info = modelInfo(config, input.model);
      // Only what the model will see: from the last compaction on.
      const history = (await transcripts.history(input.sessionId)).filter((m) => m.info.id !== input.messageId);
      refusedBefore = sandboxRefusals(history);
      const metadataOf = model.protocol === 'anthropic' || model.protocol === 'google' ? model.providerID : undefined;
      const { agent, agents, system, messages } = buildModelRequest(
        input,
        config,
        dataDir,
        history,
        { git, entries, variant, rules },
        { metadataOf },
      );
      agentRules = agent.permission;
      const params = await chatParams(input, agent.name, project, {
        temperature: agent.temperature,
        topP: agent.topP,
        options: { ...model.options, ...agent.options },
      });
      return {
        model,
        system,
        messages,
        tools:
          variant === 'small'
            ? smallModelTools(
                offered,
                find,
                (template) => describeTaskTool(agents, agent.permission, template),
                entries,
              )
            : functionTools(offered, find, (spec) => {
                if (spec.name === 'task') return describeTaskTool(agents, agent.permission);
                if (spec.name === 'skill') return describeSkillTool(skills ?? [], agent.permission);
                return spec.description;
              }),
        temperature: params.temperature,
        topP: params.topP,
        topK: params.topK,
        maxOutputTokens: outputLimit(info.limit?.output, variant),
        providerOptions:
          Object.keys(params.options).length > 0 ? { [model.optionsKey]: params.options as never } : undefined,
        acceptsToolCall: (name, args) =>
          checkToolCall({ partId: '', callId: '', tool: name, input: args }, offered, find).ok,
        costOf: (tokens) => costOf(tokens, info.cost),
      };
    });
    const calls = await planToolCalls(store, answer.toolCalls, {
      offered,
      agentRules,
      directory: input.directory,
      globalConfigDir: configDir(env),
      sandboxRefusals: refusedBefore,
      find,
    });
    return { finish: answer.finish, calls, tokens: answer.tokens, text: preview(answer.text) };
  }

  /**
   * A cap on the answer's length, sent to every provider as OpenCode does: the model's own output
   * limit (the catalogue's, or `limit.output` in config), at most 32,000 tokens. Anthropic requires
   * one; elsewhere it stops a small model that loops from generating for minutes (a small model
   * with no configured limit gets 4,096).
   */
  function outputLimit(modelLimit: number | undefined, variant: PromptVariant): number {
    return Math.min(
      modelLimit || (variant === 'small' ? SMALL_MODEL_OUTPUT_TOKENS : MAX_OUTPUT_TOKENS),
      MAX_OUTPUT_TOKENS,
    );
  }

  /** The agent's sampling parameters as `chat.params` plugins leave them; a failing plugin fails the call for good. */
  async function chatParams(
    input: ModelStepInput,
    agent: string,
    project: ConfigFilesRecord,
    params: ChatParams,
  ): Promise<ChatParams> {
    const providerID = input.model.slice(0, input.model.indexOf('/'));
    const hookInput = {
      sessionID: input.sessionId,
      agent,
      model: { id: input.model.slice(providerID.length + 1), providerID },
      provider: { id: providerID },
    };
    try {
      return await pluginChatParams(input.directory, env, project, hookInput, params);
    } catch (error) {
      if (error instanceof PluginError) throw ApplicationFailure.nonRetryable(error.message, 'PluginError');
      throw error;
    }
  }

  return { callModel };
}
