/**
 * Package managers' commands that fetch from a registry (not `npm test` or `cargo test`, which are
 * often silent for a while and need no network), and the hosts they fetch from by default.
 */
const REGISTRIES: [RegExp, string[]][] = [
  [
    /\b(?:npm|yarn|pnpm|bun) +(?:i|install|ci|add|update|upgrade|view|info|show|outdated|audit|exec|dlx|create|x)\b|\b(?:npx|bunx)\b/,
    ['registry.npmjs.org'],
  ],
  [
    /\b(?:pip3?|uv pip|pipx|poetry) +(?:install|download|add|lock)\b|\buvx\b|\buv +(?:add|sync|lock|tool)\b/,
    ['pypi.org', 'files.pythonhosted.org'],
  ],
  [/\bcargo +(?:build|fetch|install|update|add|run|check)\b/, ['crates.io', 'static.crates.io', 'index.crates.io']],
  [/\bgo +(?:get|install|mod +download)\b/, ['proxy.golang.org']],
  [/\b(?:gem|bundle) +install\b/, ['rubygems.org']],
];
const URL_HOST = /\b(?:https?|git|ssh):\/\/(?:[^@/\s]+@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,})/g;
const SCP_HOST = /\bgit@([A-Za-z0-9.-]+\.[A-Za-z]{2,}):/g;

/** The hosts a command line names (URLs) or fetches from (a package manager's registry). */
export function hostsTheCommandNeeds(command: string): string[] {
  const hosts = new Set<string>();
  for (const match of command.matchAll(URL_HOST)) hosts.add(match[1].toLowerCase());
  for (const match of command.matchAll(SCP_HOST)) hosts.add(match[1].toLowerCase());
  for (const [program, registry] of REGISTRIES) if (program.test(command)) registry.forEach((host) => hosts.add(host));
  return [...hosts];
}

/**
 * What a command that went quiet while it needs a host the sandbox does not let through is told
 * (and the person, while it runs): programs retry a name that does not resolve for a minute or
 * more without a word (`npm view` for 75 s).
 */
export function networkWaitNote(hosts: string[], silentForMs: number): string {
  const entry = JSON.stringify({ sandbox: { network: { allow: hosts } } });
  return (
    `No output for ${Math.round(silentForMs / 1000)} s: the command may be waiting for ${hosts.join(', ')}, which the ` +
    `sandbox cannot reach (it has no network). A person can allow it in loom.json: ${entry.slice(1, -1)}; ` +
    `or call bash again with "sandbox": false to ask to run the command outside the sandbox.`
  );
}
