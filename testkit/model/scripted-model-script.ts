// What a scripted model's script says: rules, each a matcher over the recorded request and the reply to send.

export interface ScriptedToolCall {
  name: string;
  /** Serialised with JSON.stringify; a string is sent raw (lets tests send invalid JSON). */
  args: unknown | string;
  id?: string;
}

export interface ScriptedReply {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finish?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage?: { prompt_tokens: number; completion_tokens: number; cache_read_tokens?: number; cache_write_tokens?: number };
  status?: number;
  errorMessage?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  chunkDelayMs?: number;
  chunkSize?: number;
  hangUp?: boolean;
  /**
   * Streamed answers: send this many SSE chunks (0: just the headers), then go silent with the
   * connection open, as a stalled provider does; see `stallMs`.
   */
  stallAfterChunks?: number;
  /** How long the silence lasts before the rest is sent; unset: until the client hangs up. */
  stallMs?: number;
  /** Streamed answers: nothing but `data: [DONE]` (an answer with no content at all). */
  emptyStream?: boolean;
}

export interface RecordedRequest {
  index: number;
  /** Which API the request spoke; `messages` and `body` are in its own shape. */
  protocol: 'openai' | 'anthropic' | 'gemini';
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** The body exactly as it arrived. */
  raw: string;
  model: string;
  stream: boolean;
  /** The raw messages: OpenAI and Anthropic `body.messages`, Gemini `body.contents`. */
  messages: any[];
  system: string;
  /** The last user message that is more than tool results (so still the prompt after a tool round trip). */
  lastUser: string;
  /** The tool results of the last message, when `lastRole` is 'tool'. */
  lastTool: string;
  /** 'user', 'assistant', 'tool' (the last message carries tool results) or 'system'. */
  lastRole: string;
  toolNames: string[];
  rule?: string;
}

export interface Matcher {
  system?: string | RegExp;
  lastUser?: string | RegExp;
  lastTool?: string | RegExp;
  lastRole?: 'user' | 'tool' | 'assistant' | 'system';
  anyMessage?: string | RegExp;
  toolOffered?: string;
  model?: string;
  test?: (req: RecordedRequest) => boolean;
}

export interface ScriptRule {
  name?: string;
  when?: Matcher;
  reply: ScriptedReply | ((req: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);
  times?: number;
}
