import type { Ruleset } from '../../../core/rules/permission.js';
import type { LoomConfig } from '../../../core/config/config.js';
import type { SessionStore } from '../../store/store.js';

/** What a tool handler gets besides its input. */
export interface ToolContext {
  /** The project directory; relative paths resolve against it. */
  directory: string;
  /** Loom's data folder (saved tool outputs live under it). */
  dataDir: string;
  sessionId: string;
  messageId: string;
  callId: string;
  /** The run's model (`provider/model`) and the configuration of the project. */
  model: string;
  config: LoomConfig;
  store: SessionStore;
  /** The worker's environment, secrets included: a process a tool starts gets `toolEnvironment(env, config)`. */
  env: NodeJS.ProcessEnv;
  /** The run granted this call paths outside the project (the `external_directory` permission). */
  externalAllowed?: boolean;
  /**
   * What those grants open for writing in a bash call's sandbox, as approved; left out by a run
   * from before it said, when bash works it out from the line again.
   */
  writable?: string[];
  /** The run granted this call a fetch of a local-network address (`webfetch`). */
  localNetworkAllowed?: boolean;
  /** For searches: the rules on reading files (`*.env` asks): lines of files they do not allow are left out. */
  readRules?: Ruleset;
  /** The agent whose call it is, when the run said (bash applies its `sandbox` settings). */
  agent?: string;
  /** The workflow run the call belongs to (a warning said once per run is keyed by it). */
  runId?: string;
  /** Aborted when the run is cancelled, the call times out, or the worker shuts down. */
  abort: AbortSignal;
  /** Shows progress on the running call (a title, or metadata such as a command's output so far). */
  update(progress: { title?: string; metadata?: Record<string, unknown> }): void;
}

/** A file the model should see, e.g. an image that `read` opened. */
export interface Attachment {
  mime: string;
  /** A `data:` URL. */
  url: string;
  filename?: string;
}

export interface ToolOutput {
  /** A short label shown with the call (e.g. the path read). */
  title: string;
  /** What the model sees. */
  output: string;
  metadata?: Record<string, unknown>;
  attachments?: Attachment[];
}

export type ToolHandler<Input = Record<string, unknown>> = (input: Input, context: ToolContext) => Promise<ToolOutput>;

/** A failure the model should see and can act on (missing file, bad pattern, …). */
export class ToolError extends Error {
  override name = 'ToolError';
}

/**
 * A path outside the project directory. Until permissions decide (`external_directory`), such
 * paths are refused.
 */
export class ExternalDirectoryError extends ToolError {
  override name = 'ExternalDirectoryError';
  constructor(
    readonly path: string,
    readonly directory: string,
  ) {
    super(
      `${path} is outside the project directory ${directory}. Access to other directories needs the external_directory permission, which is not granted.`,
    );
  }
}
