import pc from 'picocolors';
import type { SessionSnapshot } from '../session/session-watch.js';

/** The top line: the session's title and id, or for a subagent's session where it sits in the tree. */
export function headerLine(
  snapshot: SessionSnapshot | undefined,
  width: number,
  sessionId: string | undefined,
): string {
  if (!sessionId) return pc.bold('loom') + pc.dim(' · new session');
  const session = snapshot?.session;
  if (!session) {
    return snapshot?.missing
      ? pc.red(`Unknown session "${sessionId}". ctrl+x l lists sessions; ctrl+x n starts a new one.`)
      : pc.dim(`${sessionId} …`);
  }
  const state = session.status === 'busy' ? pc.yellow(' ● busy') : pc.dim(` · ${session.status}`);
  if (session.parentID) {
    const facts = `Subagent session @${session.agent} · ${session.title}`;
    const keys = pc.dim(' · ctrl+x ↑ parent · ctrl+x ← → siblings');
    return `${pc.cyan(facts.slice(0, width - 50))}${state}${keys}`;
  }
  return `${pc.bold(`# ${session.title}`.slice(0, width - 40))}${pc.dim(` · ${session.id}`)}${state}`;
}

/** The home screen, before a first prompt starts a session. */
export function homeLines(directory: string, width: number, _height: number): string[] {
  const logo = ['█   ███  ███  █   █', '█   █ █  █ █  ██ ██', '█   █ █  █ █  █ █ █', '███ ███  ███  █   █'];
  const pad = (line: string) => ' '.repeat(Math.max(Math.floor((width - line.length) / 2), 0)) + line;
  return [
    ...logo.map((line) => pc.cyan(pad(line))),
    '',
    pc.dim(pad(`durable agents in ${directory}`)),
    '',
    pc.dim(pad('type a prompt and press enter · ctrl+x l opens a session · /help lists the commands')),
  ];
}
