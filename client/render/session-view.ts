import pc from 'picocolors';
import { isCleared } from '../../core/models/compaction.js';
import type { MessageWithParts } from '../../core/records/message.js';
import type { Part } from '../../core/records/part.js';
import type { Session } from '../../core/records/session.js';
import { plural } from './quantities.js';
import { describeToolCall } from '../../core/tool-call/description.js';
import { callMark, sandboxRefusalOf, subagentCallLine, subagentSteps, taskSessionId } from './tool-call.js';

const OUTPUT_PREVIEW_LINES = 8;

export interface SessionViewOptions {
  /** Tool outputs in full rather than their first lines. */
  full?: boolean;
}

/** A session as text: a header, then every message with every part. */
export function renderSession(
  session: Session,
  messages: MessageWithParts[],
  options: SessionViewOptions = {},
): string {
  const lines = [
    `${pc.bold(session.title)}`,
    pc.dim(`${session.id} · ${session.agent} · ${session.model} · ${session.status}`),
    pc.dim(
      `${session.host ? `${session.host}:` : ''}${session.directory} · created ${time(session.time.created)} · updated ${time(session.time.updated)}`,
    ),
  ];
  if (session.parentID) lines.push(pc.dim(`child of ${session.parentID}`));
  if (session.error) {
    lines.push(pc.red(`✗ ${session.error.name}: ${session.error.message}`));
    lines.push(pc.dim(`  Fix it, then \`loom resume ${session.id} "…"\` runs the session again.`));
  }
  const revert = session.revert;
  const steps = sessionSteps(messages);
  let turn = 0;
  for (const [index, { info, parts }] of messages.entries()) {
    lines.push('');
    if (revert && info.id === revert.messageID) {
      lines.push(
        pc.yellow(`── reverted from here: hidden from the model (\`loom unrevert ${session.id}\` brings it back)`),
      );
      lines.push('');
    }
    if (info.role === 'user') {
      // What `loom revert`, `fork` and `diff --message` take: the turn's number or its message id.
      const facts = [`turn ${++turn}`, info.id, turnSteps(messages, steps, index), time(info.time.created)]
        .filter(Boolean)
        .join(' · ');
      lines.push(pc.cyan(`── user · ${facts}`));
    } else {
      const tokens = info.tokens.input + info.tokens.output + info.tokens.cache.read;
      const step = info.summary ? 'summary' : `step ${steps[index]}`;
      const facts = [step, info.finish, plural(tokens, 'token')].filter(Boolean).join(' · ');
      lines.push(pc.magenta(`── ${info.agent} · ${facts}`));
      if (info.error) lines.push(pc.red(`  ✗ ${info.error.name}: ${info.error.message}`));
    }
    for (const part of parts) {
      if (part.type === 'patch') lines.push(patchLine(part.files, session.id, steps[index]));
      else lines.push(...renderPart(part, options));
    }
  }
  return lines.join('\n');
}

/** Whether a message is a step of the session's loop: an answer, not a compaction's summary. */
function isStep({ info }: MessageWithParts): boolean {
  return info.role === 'assistant' && !info.summary;
}

/**
 * The session's step at each message, counted over the whole session as `loom diff --step` takes
 * it (each run counts its own from 1): a step's own number, else the last step before it (0: none).
 */
function sessionSteps(messages: MessageWithParts[]): number[] {
  let step = 0;
  return messages.map((message) => (isStep(message) ? ++step : step));
}

/** `steps 3–5` or `step 3`: the steps of the turn whose user message is at `index`; nothing when it has none. */
function turnSteps(messages: MessageWithParts[], steps: number[], index: number): string | undefined {
  const numbers: number[] = [];
  for (let at = index + 1; at < messages.length && messages[at].info.role !== 'user'; at++)
    if (isStep(messages[at])) numbers.push(steps[at]);
  if (numbers.length === 0) return undefined;
  const [first, last] = [numbers[0], numbers[numbers.length - 1]];
  return first === last ? `step ${first}` : `steps ${first}–${last}`;
}

function renderPart(part: Part, options: SessionViewOptions): string[] {
  const full = options.full ?? false;
  switch (part.type) {
    case 'text':
      return [part.synthetic ? pc.dim(part.text) : part.text];
    case 'reasoning':
      return [pc.dim(pc.italic(part.text))];
    case 'tool': {
      const { state } = part;
      const refusal = sandboxRefusalOf(part);
      const call = describeToolCall(part.tool, state.input);
      const label = refusal
        ? `${callMark('error')} ${call} ${pc.dim('—')} ${refusal}`
        : `${callMark(state.status)} ${call}`;
      const childId = taskSessionId(part);
      const child = childId ? pc.dim(` → ${childId}`) : '';
      const steps =
        part.tool === 'task' && 'metadata' in state ? subagentSteps(state.metadata).map(subagentCallLine) : [];
      if (state.status === 'completed') {
        const cleared = isCleared(part) ? pc.dim(' (output cleared for the model)') : '';
        return [`${label}${child}${cleared}`, ...steps, ...indent(preview(state.output, full))];
      }
      if (state.status === 'error') return [`${label}${child}`, ...steps, ...indent(preview(state.error, full))];
      return [`${label}${child} ${pc.dim(`(${state.status})`)}`, ...steps];
    }
    case 'file':
      return [pc.dim(`[file ${part.filename ?? part.url} · ${part.mime}]`)];
    case 'agent':
      return [pc.dim(`[@${part.name}]`)];
    case 'subtask':
      return [pc.dim(`[subtask @${part.agent}: ${part.description}]`)];
    case 'compaction':
      return [pc.dim(`[compaction${part.auto ? ' (automatic)' : ''}]`)];
    case 'patch':
      return [];
  }
}

const FILES_LISTED = 8;

function patchLine(files: string[], sessionId: string, step: number): string {
  return (
    pc.yellow(`± ${plural(files.length, 'file')} changed: ${listed(files)}`) +
    pc.dim(` (loom diff ${sessionId} --step ${step})`)
  );
}

function listed(files: string[]): string {
  const more = files.length > FILES_LISTED ? `, … ${files.length - FILES_LISTED} more` : '';
  return files.slice(0, FILES_LISTED).join(', ') + more;
}

function preview(text: string, full: boolean): string[] {
  const lines = text.split('\n');
  if (full || lines.length <= OUTPUT_PREVIEW_LINES) return lines;
  return [
    ...lines.slice(0, OUTPUT_PREVIEW_LINES),
    pc.dim(`… ${plural(lines.length - OUTPUT_PREVIEW_LINES, 'more line')} (--full shows all)`),
  ];
}

function indent(lines: string[]): string[] {
  return lines.map((line) => pc.dim(`    ${line}`));
}

export function time(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
