import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { loadClientConfig, type ClientConfigProfile } from '@temporalio/envconfig';
import { TemporalConfigError } from './errors.js';
import { errorMessage } from '../../core/text/error-message.js';

/** The TOML file of Temporal's profiles, as Temporal's CLI and SDKs find it. */
export interface ProfileFile {
  /** The file's path, whether or not it exists. */
  path: string;
  /** Where the path came from: `TEMPORAL_CONFIG_FILE`, or Temporal's default location. */
  source: string;
  exists: boolean;
}

/** `TEMPORAL_CONFIG_FILE`, else `temporalio/temporal.toml` in the user's config folder. */
export function profileFile(env: NodeJS.ProcessEnv): ProfileFile | undefined {
  const named = env.TEMPORAL_CONFIG_FILE;
  if (named) return { path: named, source: 'TEMPORAL_CONFIG_FILE', exists: existsSync(named) };
  const folder = userConfigFolder(env);
  if (!folder) return undefined;
  const path = join(folder, 'temporalio', 'temporal.toml');
  return { path, source: "Temporal's default profile file", exists: existsSync(path) };
}

function userConfigFolder(env: NodeJS.ProcessEnv): string | undefined {
  if (process.platform === 'win32') return env.APPDATA || undefined;
  const home = env.HOME || homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support');
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg) return isAbsolute(xdg) ? xdg : undefined;
  return join(home, '.config');
}

/** The keys Temporal's profiles define (`codec` is read by Temporal's CLI, not by SDKs). */
const PROFILE_KEYS = ['address', 'namespace', 'api_key', 'tls', 'codec', 'grpc_meta'];

/**
 * The profiles of the file, by name. A file that does not parse is an error naming it; keys
 * Temporal does not know (a misspelt `adress` would otherwise quietly mean the embedded server)
 * are returned as warnings.
 */
export function readProfiles(file: ProfileFile): { profiles: Record<string, ClientConfigProfile>; warnings: string[] } {
  if (!file.exists) return { profiles: {}, warnings: [] };
  const configSource = { path: file.path };
  let profiles: Record<string, ClientConfigProfile>;
  try {
    profiles = loadClientConfig({ configSource }).profiles;
  } catch (error) {
    throw new TemporalConfigError(
      `${file.path} (${file.source}) is not a valid Temporal profile file: ${firstLine(error)}`,
    );
  }
  const warnings: string[] = [];
  try {
    loadClientConfig({ configSource, configFileStrict: true });
  } catch (error) {
    warnings.push(
      `${file.path}: ${firstLine(error).replace(/^Validation error: /, '')} (Temporal's profiles know ${PROFILE_KEYS.join(', ')}); ignored.`,
    );
  }
  return { profiles, warnings };
}

function firstLine(error: unknown): string {
  return errorMessage(error).split('\n')[0]!;
}
