import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { storedHostOr } from '../../activities/hosts/host-id.js';
import type { Session } from '../../core/records/session.js';
import { InputError } from '../input-error.js';

/**
 * The session as a new run sees it: in `dir` when one is given (on this machine), else in its own
 * folder, which must still be there when it is on this machine: an isolated batch task's copy is
 * deleted once the batch is applied or discarded, and so may any folder be.
 */
export function sessionInFolder(session: Session, hostId: string, dir: string | undefined): Session {
  if (dir !== undefined) {
    const directory = resolve(dir);
    if (!existsSync(directory) || !statSync(directory).isDirectory())
      throw new InputError(`--dir ${dir}: ${directory} is not a folder.`);
    return { ...session, directory, host: hostId };
  }
  if (storedHostOr(session.host, hostId) !== hostId || existsSync(session.directory)) return session;
  const copy = session.project && session.project !== session.directory;
  throw new InputError(
    `Session ${session.id} worked in ${session.directory}, which is gone` +
      (copy ? ` (the copy of ${session.project} its isolated batch made, deleted since)` : '') +
      `. Resume it in another folder: \`loom resume ${session.id} --dir ${copy ? session.project : '<folder>'} "…"\`.`,
  );
}
