import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { isLoopback } from '../../core/loopback.js';

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
 * `GET /event` also takes `?token=`, since a browser's EventSource cannot send headers.
 */
export function requireToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    if (c.req.method === 'GET' && PUBLIC.test(c.req.path)) return next();
    const header = c.req.header('authorization') ?? '';
    const fromQuery = c.req.method === 'GET' && c.req.path === '/event' ? c.req.query('token') : undefined;
    const match = /^Bearer\s+(.+)$/i.exec(header) ?? (fromQuery ? [fromQuery, fromQuery] : null);
    // Comparing digests keeps the comparison constant-time whatever the length given.
    if (!match || !timingSafeEqual(digest(match[1].trim()), expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="loom"');
      return c.json(
        {
          error: match
            ? 'Wrong token in the Authorization header.'
            : 'Missing Authorization: Bearer <token> header (the token is LOOM_SERVER_TOKEN, or the one `loom serve` printed).',
        },
        401,
      );
    }
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
