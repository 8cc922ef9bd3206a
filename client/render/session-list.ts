import { sep } from 'node:path';
import pc from 'picocolors';
import { projectOf, type Session } from '../../core/records/session.js';
import { time } from './session-view.js';

export interface SessionListOptions {
  /** A header line naming the columns (in a terminal, not when piped). */
  header: boolean;
  /** A directory column, for sessions of several projects; the home folder reads `~`. */
  directories?: { home: string };
  /** What to say after a session's title (a host no worker serves), by session id. */
  notes?: ReadonlyMap<string, string>;
}

/** `loom ls`'s lines: one per session, in columns, newest first as given. */
export function renderSessionList(sessions: Session[], options: SessionListOptions): string[] {
  const home = options.directories?.home;
  const rows = sessions.map((session) => [
    session.id,
    session.status,
    session.agent,
    time(session.time.updated),
    ...(home === undefined ? [] : [shortenHome(projectOf(session), home)]),
  ]);
  const headings = ['ID', 'STATUS', 'AGENT', 'UPDATED', ...(home === undefined ? [] : ['DIRECTORY'])];
  const widths = headings.map((heading, column) =>
    Math.max(...[heading, ...rows.map((row) => row[column])].map((cell) => cell.length)),
  );
  const line = (cells: string[], title: string) =>
    [...cells.map((cell, column) => cell.padEnd(widths[column])), title].join('  ');
  const lines = options.header ? [pc.dim(line(headings, 'TITLE'))] : [];
  sessions.forEach((session, index) => {
    const cells = rows[index].map((cell, column) => colour(headings[column], cell.padEnd(widths[column]), session));
    const note = options.notes?.get(session.id);
    lines.push(`${cells.join('  ')}  ${session.title}${note ? `  ${pc.yellow(note)}` : ''}`);
  });
  return lines;
}

function colour(heading: string, cell: string, session: Session): string {
  if (heading === 'STATUS')
    return session.status === 'busy' ? pc.yellow(cell) : session.status === 'failed' ? pc.red(cell) : cell;
  if (heading === 'UPDATED' || heading === 'DIRECTORY') return pc.dim(cell);
  return cell;
}

/** `/home/ada/src/app` → `~/src/app`. */
export function shortenHome(path: string, home: string): string {
  const base = home.endsWith(sep) ? home.slice(0, -1) : home;
  if (!base) return path;
  if (path === base) return '~';
  return path.startsWith(`${base}${sep}`) ? `~${path.slice(base.length)}` : path;
}
