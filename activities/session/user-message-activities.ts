import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { parseSlashCommand } from '../../core/config/command-template.js';
import { evaluate, type Ruleset } from '../../core/rules/permission.js';
import { partId } from '../../core/records/ids.js';
import type { Part, PartContent } from '../../core/records/part.js';
import type { LoomConfig } from '../../core/config/config.js';
import { runConfiguration } from '../config/run-configuration.js';
import type { ActivityDeps } from '../deps.js';
import { saveUserMessageRow } from './message-time.js';
import { readPrompt } from './stored-prompt.js';
import { namedFileReferences, resolveReferences, type Reference } from './prompt-references.js';
import { promptVariant } from '../../core/models/prompt-variant.js';
import { projectAgents } from '../config/project-agents.js';
import { realPathOf } from '../permissions/real-path.js';
import { isInside } from '../tools/files/project-path.js';
import { read } from '../tools/read.js';

/** What OpenCode adds after an @mention of an agent: the model is to delegate to it. */
export const mentionInstruction = (agent: string) =>
  ` Use the above message and context to generate a prompt and call the task tool with subagent: ${agent}`;

export function createUserMessageActivities({ store, env, dataDir }: ActivityDeps) {
  /**
   * Writes a prompt as a user message. `@file` and `@folder` references are read into it (as the
   * read tool would show them); an `@agent` mention adds an agent part and the instruction to
   * delegate to that agent. Returns the agents mentioned: that turn's task calls do not ask. A
   * prompt that calls a configured slash command is left for `prepareCommand`, and its name returned.
   */
  async function saveUserMessage(input: {
    sessionId: string;
    messageId: string;
    agent: string;
    model: string;
    /** The prompt, by its id in the store; or `text`, for Loom's own short prompts. */
    promptId?: string;
    text?: string;
    directory: string;
    /** The run's configuration (absent from runs of Loom 0.3.0 and before: see `runConfiguration`). */
    workspaceConfigId?: string;
    /** Written by Loom, not the user (e.g. the request to summarise a subtask): taken as it is. */
    synthetic?: boolean;
    /** The configured slash commands: a prompt that calls one is not written but handed back. */
    commands?: string[];
  }): Promise<{ mentions: string[]; command?: string }> {
    const text = input.promptId ? await readPrompt(store, input.promptId, input.sessionId) : (input.text ?? '');
    const slash = input.commands && !input.synthetic ? parseSlashCommand(text) : undefined;
    if (slash && input.commands!.includes(slash.name)) return { mentions: [], command: slash.name };
    await saveUserMessageRow(store, input);
    if (input.synthetic) {
      await store.savePart({
        id: partId(input.messageId, 0),
        sessionID: input.sessionId,
        messageID: input.messageId,
        type: 'text',
        text,
        synthetic: true,
      });
      return { mentions: [] };
    }
    const { config } = await runConfiguration(store, env, input);
    const agents = projectAgents(config, dataDir);
    const mentioned = await resolveReferences(text, {
      directory: input.directory,
      home: homedir(),
      agents: agents.map((a) => a.name),
    });
    // A small model guesses what a file holds: the files the prompt names are read for it.
    const named =
      promptVariant(config, input.model) === 'small' ? await namedFileReferences(text, input.directory, mentioned) : [];
    const parts: PartContent[] = [{ type: 'text', text }];
    const callerRules = agents.find((agent) => agent.name === input.agent)?.permission ?? [];
    // A subagent's prompt was written by a model: its references get no more than its tools would.
    const fromModel = Boolean((await store.getSession(input.sessionId))?.parentID);
    for (const reference of mentioned) {
      const refused = fromModel ? referenceRefusal(reference, input.directory, callerRules) : undefined;
      parts.push(
        ...(refused
          ? [{ type: 'text' as const, synthetic: true, text: refused }]
          : await referenceParts(reference, input, config)),
      );
    }
    // Read only where the read tool would not ask: nobody asked for these.
    for (const reference of named)
      if (!referenceRefusal(reference, input.directory, callerRules))
        parts.push(...(await referenceParts(reference, input, config)));
    const mentions = mentioned.filter((reference) => reference.kind === 'agent').map((reference) => reference.name);
    for (const name of mentions) {
      const denied = evaluate('task', name, callerRules).action === 'deny';
      parts.push({ type: 'agent', name });
      parts.push({
        type: 'text',
        synthetic: true,
        text: mentionInstruction(name) + (denied ? ' . Invoked by user; guaranteed to exist.' : ''),
      });
    }
    for (const [index, part] of parts.entries()) {
      await store.savePart({
        ...part,
        id: partId(input.messageId, index),
        sessionID: input.sessionId,
        messageID: input.messageId,
      } as Part);
    }
    return { mentions };
  }

  /**
   * Why a reference in a prompt a model wrote is not read in: its real path is outside the project,
   * or the read rules do not simply allow it (`.env`). The read tool asks for such a file.
   */
  function referenceRefusal(reference: Reference, directory: string, rules: Ruleset): string | undefined {
    if (reference.kind === 'agent') return undefined;
    const real = realPathOf(reference.path);
    const outside = !isInside(realPathOf(directory), real);
    const protectedFile = [reference.path, real].some((path) => evaluate('read', path, rules).action !== 'allow');
    if (!outside && !protectedFile) return undefined;
    const why = outside ? `it is outside the project (${real})` : 'the read rules protect it';
    return `@${reference.name} was not read into this prompt: ${why}. Use the read tool on it if it is needed, and the user will be asked.`;
  }

  /** A referenced file or folder, as the read tool shows it (images and PDFs as files). */
  async function referenceParts(
    reference: Reference,
    input: { sessionId: string; messageId: string; model: string; directory: string },
    config: LoomConfig,
  ): Promise<PartContent[]> {
    if (reference.kind === 'agent') return [];
    if (reference.kind === 'file' && reference.mime !== 'text/plain') {
      const data = await readFile(reference.path);
      return [
        {
          type: 'file',
          mime: reference.mime,
          filename: reference.name,
          url: `data:${reference.mime};base64,${data.toString('base64')}`,
        },
      ];
    }
    try {
      const output = await read(
        { filePath: reference.path },
        {
          directory: input.directory,
          dataDir,
          sessionId: input.sessionId,
          messageId: input.messageId,
          callId: '',
          model: input.model,
          config,
          store,
          env,
          externalAllowed: true,
          abort: new AbortController().signal,
          update: () => undefined,
        },
      );
      return [
        {
          type: 'text',
          synthetic: true,
          text: `Called the Read tool with the following input: ${JSON.stringify({ filePath: reference.path })}`,
        },
        { type: 'text', synthetic: true, text: output.output },
      ];
    } catch (error) {
      return [
        { type: 'text', synthetic: true, text: `Could not read @${reference.name}: ${(error as Error).message}` },
      ];
    }
  }

  /** A request to compact the session: a user message holding a `compaction` part. */
  async function saveCompactionRequest(input: {
    sessionId: string;
    messageId: string;
    agent: string;
    model: string;
    auto: boolean;
    overflow: boolean;
  }) {
    await saveUserMessageRow(store, input);
    await store.savePart({
      id: partId(input.messageId, 0),
      sessionID: input.sessionId,
      messageID: input.messageId,
      type: 'compaction',
      auto: input.auto,
      ...(input.overflow ? { overflow: true } : {}),
    });
  }

  return { saveUserMessage, saveCompactionRequest };
}
