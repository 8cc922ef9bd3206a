import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

/**
 * What `npm run demo`'s scripted answers claim, checked against the checkout they describe, so the
 * demo fails instead of telling a new user something untrue when the code moves.
 * Returns one sentence per wrong or missing claim.
 */
export function demoAnswerProblems(answers: string[], root: string): string[] {
  const all = answers.join('\n');
  const problems: string[] = [];

  const count = /I found (\d+) test files/.exec(all);
  const onDisk = testFiles(join(root, 'test')).length;
  if (!count) problems.push('No answer says how many test files there are.');
  else if (Number(count[1]) !== onDisk)
    problems.push(`An answer says there are ${count[1]} test files, but test/ holds ${onDisk}.`);

  const loop = /`sessionWorkflow` in (\S+\.ts):(\d+)/.exec(all);
  if (!loop) problems.push('No answer says where `sessionWorkflow` is.');
  else {
    const file = isAbsolute(loop[1]) ? loop[1] : join(root, loop[1]);
    const line = existsSync(file) ? readFileSync(file, 'utf8').split('\n')[Number(loop[2]) - 1] : undefined;
    if (!line?.startsWith('export async function sessionWorkflow('))
      problems.push(
        `An answer puts \`sessionWorkflow\` at ${relative(root, file)}:${loop[2]}, but that line is ${line === undefined ? 'not there' : `"${line.trim()}"`}.`,
      );
  }
  return problems;
}

function testFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.test.ts'));
}
