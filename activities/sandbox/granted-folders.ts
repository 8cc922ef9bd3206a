import { permissionsOf } from '../permissions/index.js';

/**
 * The folders outside the project a bash call names, which a person allowed it to reach
 * (`external_directory`): its sandbox makes them writable, or the approval would mean nothing.
 * Folders only known when the line runs (`$HOME/x`) are not among them.
 */
export async function grantedFolders(
  input: { command: string; workdir?: string },
  directory: string,
): Promise<string[]> {
  const requests = await permissionsOf('bash', input, [], { directory });
  return requests
    .filter((request) => request.permission === 'external_directory')
    .flatMap((request) => request.patterns)
    .map((pattern) => pattern.replace(/\/\*$/, ''))
    .filter((folder) => folder.startsWith('/') && !/[*?$`{]/.test(folder));
}
