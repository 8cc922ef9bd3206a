export type AgentMode = 'primary' | 'subagent' | 'all';

export interface AgentInfo {
  name: string;
  description: string;
  mode: AgentMode;
  hidden?: boolean;
  /** The system prompt; replaces the default one when set. */
  prompt?: string;
  /** `provider/model`; the session's model is used when unset. */
  model?: string;
  temperature?: number;
  /** Tool names offered to the model. */
  tools: string[];
}
