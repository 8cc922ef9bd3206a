import { existsSync } from 'node:fs';
import type { ConfigFilesRecord } from '../config/files.js';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { warnInWorkerLog } from '../process/worker-log.js';
import { callHook } from './hooks.js';
import { loadPlugins } from './load.js';
import type { PermissionStatus, PluginPermission, Plugins } from './types.js';
import { errorMessage } from '../../core/text/error-message.js';

/** What the plugins answered instead of a person, and which plugin had the last word. */
export interface PluginVerdict {
  status: 'allow' | 'deny';
  plugin: string;
}

/**
 * How long all `permission.ask` hooks of one request may take together. They run inside the
 * store write of the request, whose activity may take 30 s (`storePolicy`): past that it would be
 * retried and the hooks run again, so a slow plugin costs a person's answer, not a retry loop.
 */
export const PERMISSION_HOOKS_BUDGET_MS = 20_000;

const STATUSES: readonly PermissionStatus[] = ['ask', 'allow', 'deny'];

/**
 * The plugins' answer to a permission request, or undefined for "ask a person". Hooks run in load
 * order on one `output`, each seeing what the ones before set; the last plugin that changed the
 * status is the one named. A plugin that cannot load, throws, hangs or sets an unknown status
 * does not decide anything: a person is asked, as without plugins, and the worker log says why
 * (failing open to a person keeps the rules' own `ask`; no plugin failure lets a call through).
 * `project` is the config files a person trusts for the directory (none: no plugin answers).
 */
export async function pluginPermissionVerdict(
  directory: string,
  env: NodeJS.ProcessEnv,
  project: ConfigFilesRecord | undefined,
  record: PermissionRequestRecord,
): Promise<PluginVerdict | undefined> {
  if (!project || !existsSync(directory)) return undefined;
  const fallBack = (reason: string) => {
    warnInWorkerLog(
      `${reason}; asking a person about permission request ${record.id} (${record.title}) of session ${record.sessionID} instead`,
    );
    return undefined;
  };
  let plugins: Plugins;
  try {
    plugins = await loadPlugins(directory, env, project);
  } catch (error) {
    return fallBack(errorMessage(error));
  }
  const asking = plugins.list.filter((plugin) => plugin.hooks['permission.ask']);
  if (asking.length === 0) return undefined;
  const input = pluginPermission(record);
  const output: { status: PermissionStatus } = { status: 'ask' };
  const deadline = Date.now() + PERMISSION_HOOKS_BUDGET_MS;
  let decidedBy: string | undefined;
  for (const plugin of asking) {
    const before = output.status;
    const timeoutMs = Math.max(0, Math.min(plugins.timeoutMs, deadline - Date.now()));
    try {
      await callHook(plugin, 'permission.ask', timeoutMs, structuredClone(input), output);
    } catch (error) {
      return fallBack(errorMessage(error));
    }
    if (!STATUSES.includes(output.status)) {
      return fallBack(
        `Plugin ${plugin.name}: hook "permission.ask" set status ${JSON.stringify(output.status)} (expected "ask", "allow" or "deny")`,
      );
    }
    if (output.status !== before) decidedBy = plugin.name;
  }
  return output.status === 'ask' || !decidedBy ? undefined : { status: output.status, plugin: decidedBy };
}

/** A stored request in the shape of OpenCode's `Permission` (old and new field names). */
export function pluginPermission(record: PermissionRequestRecord): PluginPermission {
  return {
    id: record.id,
    type: record.permission,
    permission: record.permission,
    pattern: record.patterns.length === 1 ? record.patterns[0] : [...record.patterns],
    patterns: [...record.patterns],
    always: [...record.always],
    sessionID: record.sessionID,
    messageID: record.messageID,
    callID: record.callID,
    title: record.title,
    metadata: { tool: record.tool, agent: record.agent, ...(record.reason ? { reason: record.reason } : {}) },
    time: { created: record.time.created },
  };
}
