/**
 * What a session's tool calls wait for when no worker serves the machine that holds its files
 * (its host): said the same way by `loom show`/`loom tree` and the run's details in the Temporal UI.
 */
export function hostWaitText(host: string): string {
  return `waiting for a worker on machine ${host} (its files are there): start \`loom worker\` on ${host}`;
}
