import pc from 'picocolors';
import type { CliContext } from '../context.js';
import { hostsWithoutWorkers, hostWaitNote } from '../host-waits.js';
import { time } from '../render/session-view.js';

/** `loom ls`: sessions, most recently updated first. */
export async function lsCommand(context: CliContext, options: { json?: boolean; all?: boolean; limit?: string }): Promise<number> {
  const limit = options.limit ? Number(options.limit) : 50;
  const sessions = await context.store.listSessions({ roots: !options.all, limit });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(sessions)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    context.report('No sessions yet. Start one with `loom run "<prompt>"`.');
    return 0;
  }
  const unserved = await hostsWithoutWorkers(context, sessions);
  for (const session of sessions) {
    const waiting = hostWaitNote(session, unserved);
    const status = session.status === 'busy' ? pc.yellow(session.status) : session.status === 'failed' ? pc.red(session.status) : session.status;
    process.stdout.write(`${session.id}  ${status.padEnd(9)}  ${session.agent.padEnd(8)}  ${pc.dim(time(session.time.updated))}  ${session.title}${waiting ? `  ${pc.yellow(waiting)}` : ''}\n`);
  }
  return 0;
}
