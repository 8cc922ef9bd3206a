import { spawnSync } from 'node:child_process';

/** Runs a command to its end; throws with the end of what it printed when it fails. */
export function runCommand(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) {
    const output = `${result.stdout?.toString() ?? ''}${result.stderr?.toString() ?? ''}`.slice(-4000);
    throw new Error(
      `${command} ${args.slice(0, 6).join(' ')}${args.length > 6 ? ' …' : ''} failed (${result.error?.message ?? `exit ${result.status}`}):\n${output}`,
    );
  }
}
