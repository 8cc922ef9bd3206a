import type { Tokens } from '../records/message.js';
import type { PlannedToolCall } from '../tool-call/plan.js';

/** One model call: the workflow passes ids and names; the activity reads the transcript itself. */
export interface ModelStepInput {
  sessionId: string;
  /** The assistant message this call writes. */
  messageId: string;
  /** The user message being answered. */
  parentMessageId: string;
  agent: string;
  model: string;
  step: number;
  directory: string;
  /** Tool names offered to the model. */
  tools: string[];
  /** The agent has used its last step: the model is told to answer without tools. */
  lastStep?: boolean;
  /** The project's configuration as its host read it (`RunConfig.workspaceConfigId`). */
  workspaceConfigId: string;
}

/** Only what steers the loop; the answer itself, tool-call inputs included, is in the store. */
export interface ModelStepResult {
  finish: string;
  tokens: Tokens;
  /** The start of this step's text, for previews. */
  text: string;
  /** The step's tool calls, checked and planned by the activity. */
  calls: PlannedToolCall[];
}
