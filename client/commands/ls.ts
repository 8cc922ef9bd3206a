import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { hostsWithoutWorkers, hostWaitNote } from '../follow/host-waits.js';
import { plural } from '../render/quantities.js';
import { renderSessionList } from '../render/session-list.js';

export interface LsOptions {
  json?: boolean;
  all?: boolean;
  limit?: string;
  dir?: string;
  allProjects?: boolean;
}

/** How many sessions of other projects `loom ls` counts before it says "over". */
const COUNT_LIMIT = 1_000;

/** `loom ls`: the sessions of this project folder (or of every project), most recently updated first. */
export async function lsCommand(context: ClientContext, options: LsOptions): Promise<number> {
  const limit = limitFlag(options.limit);
  // The folder as `loom run` records it, so that the two agree.
  const directory = options.allProjects ? undefined : resolve(options.dir ?? process.cwd());
  const sessions = await context.store.listSessions({ roots: !options.all, directory, limit });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(sessions)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    context.report(await nothingHere(context, directory, !options.all));
    return 0;
  }
  const unserved = await hostsWithoutWorkers(context, sessions);
  const notes = new Map<string, string>();
  for (const session of sessions) {
    const note = hostWaitNote(session, unserved);
    if (note) notes.set(session.id, note);
  }
  const lines = renderSessionList(sessions, {
    header: Boolean(process.stdout.isTTY),
    ...(options.allProjects ? { directories: { home: homedir() } } : {}),
    notes,
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** Why the list is empty: no session at all, or none in this folder while other projects have some. */
async function nothingHere(context: ClientContext, directory: string | undefined, roots: boolean): Promise<string> {
  const start = 'Start one with `loom run "<prompt>"`.';
  if (!directory) return `No sessions yet. ${start}`;
  const elsewhere = (await context.store.listSessions({ roots, limit: COUNT_LIMIT + 1 })).length;
  if (elsewhere === 0) return `No sessions yet. ${start}`;
  const which =
    elsewhere === 1
      ? 'the session of another project'
      : `${elsewhere > COUNT_LIMIT ? `over ${plural(COUNT_LIMIT, 'session')}` : `the ${plural(elsewhere, 'session')}`} of other projects`;
  return `No sessions in ${directory}. \`loom ls --all-projects\` lists ${which}.`;
}

function limitFlag(value: string | undefined): number {
  if (value === undefined) return 50;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1)
    throw new InputError(`--limit must be a whole number of at least 1, not "${value}".`);
  return limit;
}
