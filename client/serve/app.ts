import { OpenAPIHono } from '@hono/zod-openapi';
import { LOOM_VERSION } from '../../activities/process/package-root.js';
import { cors } from 'hono/cors';
import { requireToken } from './auth.js';
import type { ServeDeps } from './deps.js';
import { errorBody, errorResponse, invalidInput } from './errors.js';
import { registerAgentRoutes } from './routes/agents.js';
import { registerConfigRoutes } from './routes/config.js';
import { registerEventRoutes } from './routes/events.js';
import { registerBatchRoutes } from './routes/batches.js';
import { registerOpenCodeSessionRoutes } from './routes/opencode-sessions.js';
import { registerPermissionRoutes } from './routes/permissions.js';
import { registerSessionReadRoutes } from './routes/sessions.js';
import { registerSessionWriteRoutes } from './routes/session-actions.js';
import { registerSessionFilesRoutes } from './routes/session-files.js';
import { registerWebRoutes } from './routes/web.js';

export type ServeApp = OpenAPIHono;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function createServeApp(deps: ServeDeps): ServeApp {
  const app = new OpenAPIHono({ defaultHook: invalidInput });
  // Before the token check: a browser's preflight request carries no credentials.
  if (deps.corsOrigins?.length)
    app.use(
      '*',
      cors({ origin: deps.corsOrigins, allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'], maxAge: 600 }),
    );
  if (deps.token) app.use('*', requireToken(deps.token));
  const { ensureWorker } = deps;
  if (ensureWorker)
    app.use('*', async (c, next) => {
      // A worker that was there at start may have stopped since. If none can start, the run waits,
      // and GET /session/{id} says what for.
      if (WRITES.has(c.req.method)) await ensureWorker().catch(() => undefined);
      await next();
    });
  app.onError(errorResponse);
  app.notFound((c) =>
    c.json(errorBody(404, `No route ${c.req.method} ${c.req.path}. GET /doc lists the routes.`), 404),
  );
  registerOpenCodeSessionRoutes(app, deps);
  registerSessionReadRoutes(app, deps);
  registerSessionWriteRoutes(app, deps);
  registerSessionFilesRoutes(app, deps);
  registerAgentRoutes(app, deps);
  registerConfigRoutes(app, deps);
  registerEventRoutes(app, deps);
  registerPermissionRoutes(app, deps);
  registerBatchRoutes(app, deps);
  registerWebRoutes(app, deps);
  if (deps.token)
    app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.doc('/doc', {
    openapi: '3.0.0',
    info: {
      title: 'Loom server',
      version: LOOM_VERSION,
      description: 'Durable OpenCode-style agent sessions on Temporal.',
    },
    ...(deps.token ? { security: [{ bearer: [] }] } : {}),
  });
  return app;
}
