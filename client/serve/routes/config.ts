import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { resolve } from 'node:path';
import { ConfigChangedAgainError } from '../../../activities/config/trust.js';
import { confirmConfig, reviewConfig } from '../../services/config-review.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody, HttpError } from '../errors.js';
import { json } from '../schemas.js';

const Waiting = z
  .object({
    directory: z.string(),
    id: z.string().openapi({ description: 'the files shown: POST /config/trust with it trusts exactly these' }),
    files: z.array(z.string()),
    sessionId: z.string().optional().openapi({ description: 'the session whose work changed them' }),
    time: z.number(),
    notable: z.array(z.string()).openapi({ description: 'settings the change sets that decide what an agent may do' }),
    diff: z.string(),
  })
  .openapi('WaitingConfigChange');

const ConfigState = z
  .object({
    directory: z.string(),
    current: z.string().openapi({ description: 'the id of the config files as they are now' }),
    trusted: z.object({ id: z.string(), time: z.number() }).nullable(),
    waiting: Waiting.nullable().openapi({
      description: "a change an agent's work made, which no run uses until trusted",
    }),
  })
  .openapi('ConfigState');

const Directory = z.string().optional().openapi({ description: 'the project (default: where `loom serve` runs)' });

const state = createRoute({
  method: 'get',
  path: '/config',
  summary: "Whether a project's config files are the ones a person trusts, and a change that waits for one",
  request: { query: z.object({ directory: Directory }) },
  responses: { 200: json(ConfigState, 'where the configuration stands') },
});

const trust = createRoute({
  method: 'post',
  path: '/config/trust',
  summary: "Trust a project's config files as they are: runs take a change an agent made only once trusted",
  request: {
    body: {
      content: {
        'application/json': {
          schema: z.object({
            directory: Directory,
            id: z.string().optional().openapi({
              description: 'the `current` (or `waiting.id`) that was reviewed: refused if they changed since',
            }),
          }),
        },
      },
    },
  },
  responses: {
    200: json(z.object({ directory: z.string(), trusted: z.string() }), 'trusted'),
    409: json(ErrorBody, 'the files changed again since they were reviewed'),
  },
});

/**
 * The project's configuration as a person reviews it (`loom config`, `loom config trust`). The
 * files are read from this server's disk: run `loom serve` on the machine that holds the project.
 */
export function registerConfigRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  const directoryOf = (given: string | undefined) => resolve(deps.defaultDirectory, given ?? '.');

  app.openapi(state, async (c) => {
    const directory = directoryOf(c.req.valid('query').directory);
    const { standing, waiting } = await reviewConfig(deps.store, directory, deps.env);
    const trusted = standing.trust ? { id: standing.trust.trustedId, time: standing.trust.time } : null;
    return c.json({ directory, current: standing.current.id, trusted, waiting: waiting ?? null }, 200);
  });

  app.openapi(trust, async (c) => {
    const body = c.req.valid('json');
    const directory = directoryOf(body.directory);
    try {
      const trusted = await confirmConfig(deps.store, directory, deps.env, body.id);
      return c.json({ directory, trusted: trusted.id }, 200);
    } catch (error) {
      if (error instanceof ConfigChangedAgainError) throw new HttpError(409, error.message);
      throw error;
    }
  });
}
