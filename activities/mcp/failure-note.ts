import type { SandboxRefusal } from '../sandbox/explain-refusal.js';
import type { ServerNeeds } from './server-sandbox.js';

/** How package runners say they could not fetch a package (npm, bun, uv). */
const FETCH_FAILED =
  /npm (?:error|ERR!)[^\n]*(?:code E\w+|\b\d{3}\b[^\n]*(?:GET|Not Found))|error: (?:GET|failed to (?:fetch|download))[^\n]*|Failed to fetch[^\n]*|error sending request[^\n]*/i;

/**
 * What `loom mcp ls` and the worker's log add to a local server's stderr when it failed to start:
 * what the sandbox refused it and the entry that allows it, or that its package runner could not
 * fetch the package (the registry was reachable), or that it printed nothing at all.
 */
export function failureNote(
  name: string,
  stderr: string,
  context: { refusal: SandboxRefusal | undefined; needs: ServerNeeds; sandboxed: boolean; timedOut: boolean },
): string | undefined {
  const { refusal, needs } = context;
  const notes: string[] = [];
  if (refusal) notes.push(`Loom's sandbox refused the server: ${refusal.reasons.join('; ')}.`);
  const fetch = needs.runner ? FETCH_FAILED.exec(stderr)?.[0] : undefined;
  if (needs.runner && fetch && !refusal?.entry.allow.length)
    notes.push(
      `${needs.runner} could not fetch the server's package (${fetch.trim()}); the sandbox lets it reach ` +
        `${needs.sandbox.network?.allow?.join(', ')} and write its cache ${needs.sandbox.write?.join(', ')}, so the ` +
        `registry itself refused or failed: check the package's name and the registry.`,
    );
  if (needs.runner && context.timedOut && stderr === '' && !refusal)
    notes.push(
      `${needs.runner} printed nothing before the server's timeout: it may still be fetching the package; ` +
        `raise "timeout" in its entry ("mcp": {"${name}": {"timeout": 120000}}).`,
    );
  if (refusal && context.sandboxed) notes.push(entryHint(name, refusal.entry));
  return notes.length ? notes.join('\n') : undefined;
}

/** The exact entry that gives the server what the sandbox refused, or runs it unconfined. */
function entryHint(name: string, entry: SandboxRefusal['entry']): string {
  const unconfined = `"mcp": {"${name}": {"sandbox": {"enabled": false}}}`;
  if (entry.write.length === 0 && entry.allow.length === 0)
    return `To run it outside the sandbox, set in loom.json: ${unconfined}.`;
  const sandbox = {
    ...(entry.write.length ? { write: entry.write } : {}),
    ...(entry.allow.length ? { network: { allow: entry.allow } } : {}),
  };
  return `To allow it, add to loom.json: "mcp": {"${name}": {"sandbox": ${JSON.stringify(sandbox)}}} (or ${unconfined} to run it unconfined).`;
}
