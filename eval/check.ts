import { spawnSync } from 'node:child_process';

const CHECK_TIMEOUT_MS = 60_000;

/** Runs a task's check in its folder: passed when it exits 0. What it printed is kept for the report. */
export function runCheck(
  check: string,
  folder: string,
  answer: string,
  tools: string[],
): { passed: boolean; output: string } {
  const result = spawnSync('bash', ['-c', check], {
    cwd: folder,
    env: { ...process.env, ANSWER: answer, TOOLS: tools.join('\n'), PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
    timeout: CHECK_TIMEOUT_MS,
  });
  return { passed: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().slice(-2000) };
}
