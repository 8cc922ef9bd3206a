import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { PACKAGE_ROOT } from '../../../activities/process/package-root.js';
import { temporalUiUrl } from '../../../worker/connection/ui.js';
import type { ServeDeps } from '../deps.js';

// From the package root, not from this file: the build bundles this file into dist/cli/.
const COMPILED = import.meta.url.endsWith('.js');
const WEB_DIR = join(PACKAGE_ROOT, ...(COMPILED ? ['dist'] : []), 'client', 'serve', 'web');

/**
 * The browser libraries the page imports, by import specifier, with the one file of each package
 * that is served: nothing else of node_modules is reachable. `url` is under /web/lib/.
 */
const LIBRARIES: Record<string, { url: string; pkg: string; file: string }> = {
  preact: { url: 'preact.js', pkg: 'preact', file: 'dist/preact.mjs' },
  'preact/hooks': { url: 'preact-hooks.js', pkg: 'preact', file: 'hooks/dist/hooks.mjs' },
  htm: { url: 'htm.js', pkg: 'htm', file: 'dist/htm.mjs' },
  marked: { url: 'marked.js', pkg: 'marked', file: 'lib/marked.esm.js' },
  dompurify: { url: 'dompurify.js', pkg: 'dompurify', file: 'dist/purify.es.mjs' },
};

/** The web view's files are text; a file of any other kind in web/ is not served. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The web view: `/` (the page; its routes live in the URL fragment, `/#/session/ses_…`), its own
 * files under `/web/`, the libraries under `/web/lib/`, and `GET /config/web` (where the Temporal
 * UI is). The token check lets the page's files through (see auth.ts): they hold no data, and the
 * page sends the token on every API call it makes.
 */
export function registerWebRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const importMap = JSON.stringify({
    imports: Object.fromEntries(Object.entries(LIBRARIES).map(([name, lib]) => [name, `/web/lib/${lib.url}`])),
  });
  // The import map is the page's one inline script; its hash is all the CSP lets through inline.
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${createHash('sha256').update(importMap).digest('base64')}'`,
    "style-src 'self'",
    // No remote images: a model-written `![](https://…?secret)` must not leak anything.
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const assets = new Set(listFiles(WEB_DIR).filter((name) => name !== 'index.html'));
  const libraries = new Map(Object.values(LIBRARIES).map((lib) => [lib.url, join(packageDir(lib.pkg), lib.file)]));

  /** `name` (what the browser asked for) decides the type; `file` is what is sent. */
  const send = (c: Context, name: string, file: string, body = readFileSync(file, 'utf8')) => {
    c.header('Content-Type', TYPES[extname(name)] ?? 'application/octet-stream');
    c.header('Content-Security-Policy', csp);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-cache');
    return c.body(body);
  };
  const notFound = (c: Context) => c.json({ error: `No file ${c.req.path} in the web view.` }, 404);

  const index = join(WEB_DIR, 'index.html');
  app.get('/', (c) =>
    send(
      c,
      index,
      index,
      readFileSync(index, 'utf8').replace('<!--importmap-->', `<script type="importmap">${importMap}</script>`),
    ),
  );
  app.get('/web/lib/:name', (c) => {
    const name = c.req.param('name');
    const file = libraries.get(name);
    return file ? send(c, name, file) : notFound(c);
  });
  // Only the files found in web/ at start are served, by exact name: no path reaches beyond it.
  app.get('/web/*', (c) => {
    const name = c.req.path.slice('/web/'.length);
    return assets.has(name) ? send(c, name, join(WEB_DIR, name)) : notFound(c);
  });

  const temporalUi = temporalUiUrl(deps.temporal, deps.env) ?? null;
  app.get('/config/web', (c) => c.json({ temporalUi, namespace: deps.temporal.namespace }, 200));
}

/** The files under `dir`, as `/`-separated paths relative to it. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)
      : TYPES[extname(entry.name)]
        ? [`${prefix}${entry.name}`]
        : [],
  );
}

/** A package's folder, found as Node finds it: in node_modules of this folder or any above it. */
function packageDir(name: string): string {
  for (let dir = PACKAGE_ROOT; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir)
      throw new Error(`The web view needs the npm package "${name}", which is not installed (run npm ci).`);
  }
}
