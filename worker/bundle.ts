import { bundleWorkflowCode } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';

export const PROJECT_ROOT = PACKAGE_ROOT;
/** Where the code running now lives: the checkout's TypeScript, or the build's JavaScript in `dist/`. */
const CODE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMPILED = import.meta.url.endsWith('.js');
const WORKFLOWS_ENTRY = join(CODE_ROOT, 'workflows', COMPILED ? 'index.js' : 'index.ts');
const TRACING_INTERCEPTORS = join(
  CODE_ROOT,
  'worker',
  'tracing',
  COMPILED ? 'workflow-interceptors.js' : 'workflow-interceptors.ts',
);

/**
 * Which bundle: the workflows alone, or with the tracing interceptors (a worker that sends traces,
 * see worker/tracing/), so a worker that does not pays nothing for them.
 */
export type BundleKind = 'plain' | 'traced';

/** The bundles `npm run build` makes, beside the build's own code. */
export const BUILT_BUNDLE_NAMES: Record<BundleKind, string> = {
  plain: 'workflow-bundle.js',
  traced: 'workflow-bundle-traced.js',
};

/**
 * The workflow bundle. The build ships them (`npm run build`); from the sources each is built
 * once per version of the workflow code and cached on disk: bundling takes seconds, and every
 * `loom run` with an in-process worker would pay it again.
 */
export async function workflowBundlePath(
  kind: BundleKind = 'plain',
  cacheDir = join(PROJECT_ROOT, 'node_modules', '.cache', 'loom'),
): Promise<string> {
  const built = join(CODE_ROOT, BUILT_BUNDLE_NAMES[kind]);
  if (COMPILED && existsSync(built)) return built;
  const file = join(cacheDir, `workflows-${kind === 'traced' ? 'traced-' : ''}${sourceHash()}.js`);
  if (existsSync(file)) return file;
  const code = await bundleWorkflows(kind);
  mkdirSync(cacheDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, code);
  renameSync(temporary, file);
  return file;
}

/**
 * The workflow code of the code running now, bundled for the workflow sandbox; with
 * `interceptorModules` too (tests bundle a changed build this way).
 */
export async function bundleWorkflows(kind: BundleKind = 'plain', interceptorModules: string[] = []): Promise<string> {
  const modules = [...(kind === 'traced' ? [TRACING_INTERCEPTORS] : []), ...interceptorModules];
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_ENTRY,
    ...(modules.length > 0 ? { workflowInterceptorModules: modules } : {}),
    logger: quietLogger,
  });
  return code;
}

let digest: string | undefined;

/**
 * A digest of the workflow code running now: of the build's plain bundle, or of the sources that
 * go into it. Code whose runs would replay differently has a different digest.
 */
export function workflowCodeDigest(): string {
  const built = join(CODE_ROOT, BUILT_BUNDLE_NAMES.plain);
  digest ??=
    COMPILED && existsSync(built) ? createHash('sha256').update(readFileSync(built)).digest('hex') : sourceHash();
  return digest;
}

/** A hash of everything that goes into the bundles: workflow, core and tracing sources and the lockfile. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...listFiles(join(CODE_ROOT, 'workflows')),
    ...listFiles(join(CODE_ROOT, 'core')),
    ...listFiles(join(CODE_ROOT, 'worker', 'tracing')),
  ];
  files.push(join(PROJECT_ROOT, 'package-lock.json'));
  for (const file of files.sort()) {
    hash.update(file.slice(file.startsWith(CODE_ROOT) ? CODE_ROOT.length : PROJECT_ROOT.length));
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

function listFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
