import { readdirSync, readFileSync } from 'node:fs';

/** The pid of a process this one started whose command line holds every one of `words`, if any. */
export function childPid(words: string[]): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== process.pid) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (words.every((word) => command.includes(word))) return Number(entry);
    } catch {
      continue; // The process ended while we looked.
    }
  }
  return undefined;
}
