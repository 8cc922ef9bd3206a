/** What one run of one task came to. */
export interface RunResult {
  agent: 'Loom' | 'OpenCode';
  model: string;
  task: string;
  kind: string;
  attempt: number;
  passed: boolean;
  /** How the run ended: `completed`, `failed`, `timed out`, … */
  status: string;
  seconds: number;
  tokens: { input: number; output: number };
  /** The tools the run called, in order, its subagents' included. */
  tools: string[];
  answer: string;
  error?: string;
  /** What the check printed, when it failed. */
  checkOutput?: string;
}
