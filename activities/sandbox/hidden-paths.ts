import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { configDir } from '../process/paths.js';

/** Credentials in a home folder: keys, cloud and registry logins, and the tokens of CLIs. */
const HOME_SECRETS = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.docker/config.json',
  '.git-credentials',
  '.gnupg',
  '.kube',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
];

/** `.env`, `.env.local`, … but not `.env.example`, which holds no secrets by convention. */
const ENV_FILE = /^\.env($|\.(?!example$|sample$|template$))/;

/** Workspaces this worker's tools ran in: each is hidden from the others' sandboxes. */
const workspaces = new Set<string>();

export function noteWorkspace(directory: string): void {
  workspaces.add(directory);
}

/**
 * What a sandbox hides by default (some may not exist): the credentials of the home folder,
 * Loom's data folder (the store, saved outputs) and its config folder, the host's `/run` (its
 * services' sockets), `.env` files in the workspace's ancestors and the home folder, and the other
 * workspaces this worker has served.
 */
export async function defaultHiddenPaths(
  workspace: string,
  loomData: string,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const home = env.HOME || homedir();
  const others = [...workspaces].filter((other) => !related(other, workspace));
  return [
    ...HOME_SECRETS.map((path) => join(home, path)),
    loomData,
    configDir(env),
    '/run',
    ...(await envFilesAround(workspace, home)),
    ...others,
  ];
}

/** Two workspaces one inside the other share files anyway; hiding one would hide the other. */
function related(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** `.env*` files beside the workspace's ancestors, up to `/`, and in the home folder. */
async function envFilesAround(workspace: string, home: string): Promise<string[]> {
  const folders = new Set<string>([home]);
  for (let folder = dirname(workspace); ; folder = dirname(folder)) {
    folders.add(folder);
    if (folder === dirname(folder)) break;
  }
  const found = await Promise.all(
    [...folders].map(async (folder) => {
      const names = await readdir(folder).catch(() => [] as string[]);
      return names.filter((name) => ENV_FILE.test(name)).map((name) => join(folder, name));
    }),
  );
  return found.flat();
}
