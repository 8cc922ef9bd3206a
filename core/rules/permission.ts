import { expandHome } from '../text/path.js';

/**
 * OpenCode's permission rules, reproduced exactly: an ordered list of `{permission, pattern,
 * action}`, the last rule matching both wins, and nothing matching means `ask`.
 */
export type PermissionAction = 'allow' | 'ask' | 'deny';
export interface PermissionRule {
  permission: string;
  pattern: string;
  action: PermissionAction;
}
export type Ruleset = PermissionRule[];
/** Config shape: an action for everything, or per permission an action or {pattern: action} (key order matters). */
export type PermissionConfig = PermissionAction | Record<string, PermissionAction | Record<string, PermissionAction>>;

/** OpenCode's expansion: also `$HOMEfoo` → `<home>foo`, as its `startsWith("$HOME")` does. */
function expandPattern(pattern: string, home: string | undefined): string {
  if (home === undefined) return pattern;
  if (pattern.startsWith('$HOME') && !pattern.startsWith('$HOME/') && pattern !== '$HOME')
    return home + pattern.slice(5);
  return expandHome(pattern, home);
}

export function fromConfig(config: PermissionConfig | undefined, options: { home?: string } = {}): Ruleset {
  if (config === undefined) return [];
  // A bare action means `{"*": action}`.
  const entries = typeof config === 'string' ? { '*': config } : config;
  const rules: Ruleset = [];
  for (const [permission, value] of Object.entries(entries)) {
    if (typeof value === 'string') {
      // OpenCode builds this rule with `action` before `pattern`; the key order shows in deniedMessage.
      rules.push({ permission, action: value, pattern: '*' });
      continue;
    }
    for (const [pattern, action] of Object.entries(value)) {
      rules.push({ permission, pattern: expandPattern(pattern, options.home), action });
    }
  }
  return rules;
}

export function merge(...rulesets: (Ruleset | undefined)[]): Ruleset {
  return rulesets.flatMap((ruleset) => ruleset ?? []);
}

/**
 * The last rule whose permission and pattern both match; `{permission, pattern: '*', action: 'ask'}` when none does.
 */
export function evaluate(permission: string, pattern: string, ...rulesets: Ruleset[]): PermissionRule {
  const match = merge(...rulesets).findLast(
    (rule) => wildcardMatch(permission, rule.permission) && wildcardMatch(pattern, rule.pattern),
  );
  return match ?? { permission, pattern: '*', action: 'ask' };
}

/**
 * Tools to hide from the model: the last rule matching the tool's permission (ignoring
 * the rule's pattern while matching) has pattern '*' and action deny.
 */
export function disabled(tools: string[], ruleset: Ruleset): Set<string> {
  const result = new Set<string>();
  for (const tool of tools) {
    const permission = permissionOfTool(tool);
    const rule = ruleset.findLast((candidate) => wildcardMatch(permission, candidate.permission));
    if (rule?.pattern === '*' && rule.action === 'deny') result.add(tool);
  }
  return result;
}

const EDIT_TOOLS = new Set(['write', 'edit', 'patch', 'multiedit', 'apply_patch']);

/** write, edit, patch, multiedit, apply_patch → 'edit'; every other tool is its own permission. */
export function permissionOfTool(tool: string): string {
  return EDIT_TOOLS.has(tool) ? 'edit' : tool;
}

/**
 * OpenCode's wildcard: `*` is any run of characters, `/` and newlines included; `?` is any one;
 * a trailing ` *` may also match nothing, so `ls *` covers `ls`. Case-sensitive (OpenCode ignores
 * case on Windows only, where Loom does not run).
 */
export function wildcardMatch(value: string, pattern: string): boolean {
  const text = value.replaceAll('\\', '/');
  let source = pattern
    .replaceAll('\\', '/')
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  if (source.endsWith(' .*')) source = `${source.slice(0, -3)}( .*)?`;
  return new RegExp(`^${source}$`, 's').test(text);
}

/**
 * What approving an `external_directory` request of a sandboxed bash call opens in its sandbox,
 * worked out where the line is parsed (activities/permissions/reached-folders.ts). A read opens
 * nothing: the sandbox reads outside the project anyway. A write opens the folders the line writes
 * in, never the home folder, `/` or a folder holding the home folder: there, only files that exist
 * (`files`); what the line writes that the sandbox cannot open is `closed`, with why.
 */
export type FolderGrant =
  { access: 'read' } | { access: 'write'; folders: string[]; files: string[]; closed: { path: string; why: string }[] };

/** One permission a tool call needs: the patterns to check and what "always" would allow. */
export interface PermissionRequest {
  permission: string;
  patterns: string[];
  always: string[];
  /**
   * Only a rule naming the pattern exactly (or an "always" reply, which does) allows it; any
   * wider allow still asks. For what rules cannot see into (a shell line that does not parse, a
   * fetch of a local-network address), where no wildcard allow was written with it in mind.
   */
  explicit?: boolean;
  /** Why the request was made, shown to the person asked (`the line does not parse`). */
  reason?: string;
  /** For a write of a config file: the change, as a unified diff (cut to `PERMISSION_DIFF_LIMIT`). */
  diff?: string;
  /** For `external_directory` of a bash call: what approving opens in its sandbox. */
  grant?: FolderGrant;
}

/** The most of a diff a permission request carries: it travels through workflow history. */
export const PERMISSION_DIFF_LIMIT = 4 * 1024;

export type Verdict =
  | { action: 'allow' }
  | { action: 'deny'; /** the rules of the ruleset whose permission matches, for the error text */ rules: Ruleset }
  | { action: 'ask' };

/** All patterns must be allowed; any deny denies at once; otherwise ask once for the whole request. */
export function decide(request: PermissionRequest, ...rulesets: Ruleset[]): Verdict {
  let ask = false;
  for (const pattern of request.patterns) {
    const rule = evaluate(request.permission, pattern, ...rulesets);
    const action = request.explicit && rule.action === 'allow' && rule.pattern !== pattern ? 'ask' : rule.action;
    if (action === 'deny') {
      const rules = merge(...rulesets).filter((rule) => wildcardMatch(request.permission, rule.permission));
      return { action: 'deny', rules };
    }
    if (action === 'ask') ask = true;
  }
  return ask ? { action: 'ask' } : { action: 'allow' };
}

// OpenCode's texts, word for word: models are trained on them.
export function deniedMessage(rules: Ruleset): string {
  return `The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules ${JSON.stringify(rules)}`;
}

export const REJECTED_MESSAGE = 'The user rejected permission to use this specific tool call.';

export function correctedMessage(feedback: string): string {
  return `The user rejected permission to use this specific tool call with the following feedback: ${feedback}`;
}

/** The rules an "always" reply adds: allow each of the request's `always` patterns. */
export function alwaysRules(request: PermissionRequest): Ruleset {
  return request.always.map((pattern) => ({ permission: request.permission, pattern, action: 'allow' }));
}
