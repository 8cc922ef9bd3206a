import { InputError } from '../input-error.js';

/** The prompt from the arguments, else stdin; `optional`: '' when there is none (the command decides). */
export async function promptFrom(words: string[], optional = false): Promise<string> {
  const prompt = words.join(' ').trim();
  if (prompt) return prompt;
  const none = () => {
    if (optional) return '';
    throw new InputError('No prompt given. Pass it as an argument or on stdin.', 2);
  };
  if (process.stdin.isTTY) return none();
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const fromStdin = Buffer.concat(chunks).toString('utf8').trim();
  return fromStdin || none();
}
