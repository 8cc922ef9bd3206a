// An agent whose prompt says what it does: `do: <tool calls as JSON>`, then it answers "done".
import type { ScriptedToolCall, ScriptRule } from './scripted-model-script.js';

export const agentDoes: ScriptRule = {
  name: 'do',
  reply: (request) => {
    const asked = /^do: (.*)$/s.exec(request.lastUser);
    if (!asked || request.lastRole === 'tool') return { text: 'done' };
    return { toolCalls: JSON.parse(asked[1]) };
  },
};

/** The prompt that makes `agentDoes` call these tools in one step. */
export const prompt = (...calls: ScriptedToolCall[]) => `do: ${JSON.stringify(calls)}`;

export const write = (filePath: string, content: string): ScriptedToolCall => ({
  name: 'write',
  args: { filePath, content },
});

export const bash = (command: string): ScriptedToolCall => ({ name: 'bash', args: { command, description: command } });

/** Rewrites a file that exists with one line (`write` wants it read first). */
export const put = (path: string, line: string) => bash(`printf '${line}\\n' > ${path}`);
