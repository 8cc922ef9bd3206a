import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { isLoopback } from '../../core/text/loopback.js';
import { errorBody } from './errors.js';

/**
 * The token the server demands: `LOOM_SERVER_TOKEN` when set; else, when it listens beyond this
 * machine, a fresh one (printed at start); else none, since only local processes can connect.
 */
export function serverToken(
  hostname: string,
  env: NodeJS.ProcessEnv,
): { token: string | undefined; generated: boolean } {
  if (env.LOOM_SERVER_TOKEN) return { token: env.LOOM_SERVER_TOKEN, generated: false };
  if (isLoopback(hostname)) return { token: undefined, generated: false };
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

/**
 * The web view's own files (the page and its scripts): they hold no data, and a browser asks for
 * them before the page can know the token. Everything they show comes through routes that check it.
 */
const PUBLIC = /^\/(?:$|index\.html$|web\/)/;

/**
 * Every route, `/doc` included, wants `Authorization: Bearer <token>`; anything else is a 401.
 * HTTP Basic with the token as password (any user name, `opencode` for OpenCode's clients) counts
 * too, as OpenCode's `OPENCODE_SERVER_PASSWORD` is sent. `GET /event` also takes `?token=`, since a
 * browser's EventSource cannot send headers.
 */
export function requireToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    if (c.req.method === 'GET' && PUBLIC.test(c.req.path)) return next();
    const fromQuery = c.req.method === 'GET' && c.req.path === '/event' ? c.req.query('token') : undefined;
    const given = tokenOf(c.req.header('authorization') ?? '') ?? fromQuery;
    // Comparing digests keeps the comparison constant-time whatever the length given.
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="loom"');
      const message =
        given !== undefined
          ? 'Wrong token in the Authorization header.'
          : 'Missing Authorization: Bearer <token> header (the token is LOOM_SERVER_TOKEN, or the one `loom serve` printed; HTTP Basic with it as the password works too).';
      return c.json(errorBody(401, message), 401);
    }
    await next();
  };
}

/** The token of `Bearer <token>`, or the password of `Basic base64(user:password)`. */
function tokenOf(header: string): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(header);
  if (bearer) return bearer[1].trim();
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (!basic) return undefined;
  const pair = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  return colon < 0 ? undefined : pair.slice(colon + 1);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
