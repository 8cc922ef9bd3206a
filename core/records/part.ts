import { z } from 'zod';

const PartBase = z.object({
  id: z.string(),
  sessionID: z.string(),
  messageID: z.string(),
});

const Span = z.object({ start: z.number(), end: z.number().optional() });

/**
 * What the provider attached to a part of its answer, by provider (`anthropic.signature` of a
 * thinking block, `google.thoughtSignature`): sent back with the part, which those APIs require.
 */
const ProviderMetadata = z.record(z.string(), z.record(z.string(), z.unknown()));

export const TextPart = PartBase.extend({
  type: z.literal('text'),
  text: z.string(),
  /** Written by Loom, not typed by the user or the model (e.g. an injected reminder). */
  synthetic: z.boolean().optional(),
  time: Span.optional(),
  metadata: ProviderMetadata.optional(),
});

export const ReasoningPart = PartBase.extend({
  type: z.literal('reasoning'),
  text: z.string(),
  time: Span,
  metadata: ProviderMetadata.optional(),
});

export const ToolStatePending = z.object({
  status: z.literal('pending'),
  input: z.record(z.string(), z.unknown()),
  raw: z.string(),
});
export const ToolStateRunning = z.object({
  status: z.literal('running'),
  input: z.unknown(),
  title: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  time: z.object({ start: z.number() }),
});
/** A file a tool hands the model (an image `read` opened), as a `data:` URL. */
export const Attachment = z.object({ mime: z.string(), url: z.string(), filename: z.string().optional() });

export const ToolStateCompleted = z.object({
  status: z.literal('completed'),
  input: z.unknown(),
  output: z.string(),
  title: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  time: z.object({ start: z.number(), end: z.number(), compacted: z.number().optional() }),
  attachments: z.array(Attachment).optional(),
});
export const ToolStateError = z.object({
  status: z.literal('error'),
  input: z.unknown(),
  error: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  time: z.object({ start: z.number(), end: z.number() }),
});
/** pending → running → completed | error */
export const ToolState = z.discriminatedUnion('status', [
  ToolStatePending,
  ToolStateRunning,
  ToolStateCompleted,
  ToolStateError,
]);
export type ToolState = z.infer<typeof ToolState>;

export const ToolPart = PartBase.extend({
  type: z.literal('tool'),
  callID: z.string(),
  tool: z.string(),
  state: ToolState,
  metadata: ProviderMetadata.optional(),
  /** Loom read this call from the answer's text: the model wrote it there (`tool_call_repair`). */
  repaired: z.boolean().optional(),
});

export const FilePart = PartBase.extend({
  type: z.literal('file'),
  mime: z.string(),
  filename: z.string().optional(),
  /** A `file://` or `data:` URL. */
  url: z.string(),
});

/** An `@agent` mention in a user prompt. */
export const AgentPart = PartBase.extend({
  type: z.literal('agent'),
  name: z.string(),
});

/** A delegated task waiting to run (slash-command subtasks). */
export const SubtaskPart = PartBase.extend({
  type: z.literal('subtask'),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: z.string().optional(),
  command: z.string().optional(),
});

/** A request to summarise the conversation so far. */
export const CompactionPart = PartBase.extend({
  type: z.literal('compaction'),
  auto: z.boolean(),
  overflow: z.boolean().optional(),
});

/**
 * What one step did to the project's files: the snapshot before its tools ran (`hash`, OpenCode's
 * name), the one after (`snapshot`), and the files that differ, by path from the snapshot root (the
 * project's git repository, else its folder). Ids only, never contents; the model never sees it.
 */
export const PatchPart = PartBase.extend({
  type: z.literal('patch'),
  hash: z.string(),
  snapshot: z.string(),
  files: z.array(z.string()),
});

export const Part = z.discriminatedUnion('type', [
  TextPart,
  ReasoningPart,
  ToolPart,
  FilePart,
  AgentPart,
  SubtaskPart,
  CompactionPart,
  PatchPart,
]);
export type Part = z.infer<typeof Part>;
export type TextPart = z.infer<typeof TextPart>;
export type ReasoningPart = z.infer<typeof ReasoningPart>;
export type ToolPart = z.infer<typeof ToolPart>;
export type FilePart = z.infer<typeof FilePart>;
export type PatchPart = z.infer<typeof PatchPart>;

/** A part before it has its ids: what a writer fills in. */
export type PartContent = Part extends infer P
  ? P extends Part
    ? Omit<P, 'id' | 'sessionID' | 'messageID'>
    : never
  : never;
