import { linkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCK_TIMEOUT_MS, SCRIPT_NAME } from './config.js';
import { DevServerError } from './errors.js';
import type { Output } from './output.js';
import { isAlive, readPid } from './processes.js';

const held = new Set<string>();
let releaseOnExit = false;

/**
 * Runs `work` while holding the lock `file`, so that two processes never install or start at once.
 * The lock is the file itself, holding its owner's pid: made with link(2), which either creates it
 * whole or fails, and taken over when its owner is gone (killed before it could remove it).
 */
export async function withLock<T>(file: string, output: Output, work: () => Promise<T>): Promise<T> {
  await acquire(file, output);
  try {
    return await work();
  } finally {
    release(file);
  }
}

async function acquire(file: string, output: Output): Promise<void> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  const mine = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(mine, `${process.pid}\n`);
  let waiting = false;
  try {
    for (;;) {
      try {
        linkSync(mine, file);
        held.add(file);
        if (!releaseOnExit) process.once('exit', () => [...held].forEach(release));
        releaseOnExit = true;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readPid(file);
      if (owner === undefined || !isAlive(owner)) {
        takeOver(file, owner, output);
        continue;
      }
      if (!waiting) output.log(`waiting for another ${SCRIPT_NAME} process (lock ${file})`);
      waiting = true;
      if (Date.now() > deadline) throw new DevServerError(`timed out waiting for lock ${file}`);
      await sleep(200);
    }
  } finally {
    unlinkSync(mine);
  }
}

/** Removes a dead owner's lock, moving it aside first so that only one process removes it. */
function takeOver(file: string, owner: number | undefined, output: Output): void {
  const aside = `${file}.stale.${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // released meanwhile
  }
  if (readPid(aside) !== owner) {
    // Another process took the stale lock between our read and the rename: give it back.
    try {
      linkSync(aside, file);
    } catch {
      // Taken again meanwhile; that owner holds it.
    }
  } else if (owner !== undefined) {
    output.log(`removing stale lock ${file} (owner ${owner} is gone)`);
  }
  // An empty lock file is the flock(1) lock of the bash version of this script: no owner to report.
  unlinkSync(aside);
}

function release(file: string): void {
  held.delete(file);
  try {
    if (readPid(file) === process.pid) unlinkSync(file);
  } catch {
    // Already gone.
  }
}
