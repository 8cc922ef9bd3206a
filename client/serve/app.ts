import { OpenAPIHono } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import type { TemporalTarget } from '../../worker/temporal/target.js';
import { LOOM_VERSION } from '../../activities/package-root.js';
import type { SessionStore } from '../../activities/store/store.js';
import { cors } from 'hono/cors';
import { requireToken } from './auth.js';
import { errorResponse, invalidInput } from './errors.js';
import { registerAgentRoutes } from './routes/agents.js';
import { registerEventRoutes } from './routes/events.js';
import { registerBatchRoutes } from './routes/batches.js';
import { registerPermissionRoutes } from './routes/permissions.js';
import { registerSessionReadRoutes } from './routes/sessions.js';
import { registerSessionWriteRoutes } from './routes/session-actions.js';
import { registerWebRoutes } from './routes/web.js';


/** What the server works over: a `CliContext` provides it in `loom serve`, tests build it by hand. */
export interface ServeDeps {
  store: SessionStore;
  /** Temporal, connected on first use (reads never need it). */
  client(): Promise<Client>;
  /** Whether runs may carry Loom's search attributes (the namespace has them). */
  searchAttributes(): Promise<boolean>;
  /** Which Temporal: the web view links runs into its UI. */
  temporal: Pick<TemporalTarget, 'address' | 'namespace' | 'embedded'>;
  taskQueue: string;
  dataDir: string;
  /** This machine's host id: new sessions' directories are here. */
  hostId: string;
  env: NodeJS.ProcessEnv;
  /** The project directory of a session started without one. */
  defaultDirectory: string;
  /** When set, every route demands `Authorization: Bearer <token>`. */
  token?: string;
  /** Where the web view is (`LOOM_WEB_URL`, else this server): runs it starts link to their pages. */
  webUrl?: string;
  /** Origins whose pages may call the API from a browser (CORS); none when unset. */
  corsOrigins?: string[];
}

export type ServeApp = OpenAPIHono;

export function createServeApp(deps: ServeDeps): ServeApp {
  const app = new OpenAPIHono({ defaultHook: invalidInput });
  // Before the token check: a browser's preflight request carries no credentials.
  if (deps.corsOrigins?.length) app.use('*', cors({ origin: deps.corsOrigins, allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'], maxAge: 600 }));
  if (deps.token) app.use('*', requireToken(deps.token));
  app.onError(errorResponse);
  app.notFound((c) => c.json({ error: `No route ${c.req.method} ${c.req.path}. GET /doc lists the routes.` }, 404));
  registerSessionReadRoutes(app, deps);
  registerSessionWriteRoutes(app, deps);
  registerAgentRoutes(app, deps);
  registerEventRoutes(app, deps);
  registerPermissionRoutes(app, deps);
  registerBatchRoutes(app, deps);
  registerWebRoutes(app, deps);
  if (deps.token) app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.doc('/doc', {
    openapi: '3.0.0',
    info: { title: 'Loom server', version: LOOM_VERSION, description: 'Durable OpenCode-style agent sessions on Temporal.' },
    ...(deps.token ? { security: [{ bearer: [] }] } : {}),
  });
  return app;
}
