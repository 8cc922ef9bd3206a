import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { resolve } from 'node:path';
import { RuleSchema } from '../../../core/records/session.js';
import { agentRows, loadProjectAgents } from '../../services/project-agents.js';
import { filesForPerson, reviewConfig } from '../../services/config-review.js';
import type { ServeDeps } from '../deps.js';
import { ErrorBody } from '../errors.js';
import { json } from '../schemas.js';

const Agent = z
  .object({
    name: z.string(),
    default: z.boolean(),
    mode: z.string(),
    model: z.string().nullable(),
    description: z.string().nullable(),
    hidden: z.boolean(),
    native: z.boolean(),
    steps: z.number().nullable(),
    permissions: z.array(z.string()).openapi({ description: 'the rules in a few words, as `loom agents` prints them' }),
    rules: z.array(RuleSchema),
  })
  .openapi('Agent');

const agents = createRoute({
  method: 'get',
  path: '/agent',
  summary: "A project's agents, as `loom agents --json` lists them",
  request: {
    query: z.object({
      directory: z.string().optional().openapi({ description: 'the project (default: where `loom serve` runs)' }),
      all: z.enum(['true', 'false']).optional().openapi({ description: 'include hidden agents' }),
    }),
  },
  responses: { 200: json(z.array(Agent), 'the agents'), 400: json(ErrorBody, 'invalid query or configuration') },
});

export function registerAgentRoutes(app: OpenAPIHono, deps: ServeDeps): void {
  app.openapi(agents, async (c) => {
    const query = c.req.valid('query');
    const directory = resolve(deps.defaultDirectory, query.directory ?? '.');
    // As a run a person starts would see them: the trusted files while a change an agent made waits.
    const { standing } = await reviewConfig(deps.store, directory, deps.env);
    const project = loadProjectAgents(directory, deps.env, deps.dataDir, filesForPerson(standing));
    const rows = agentRows(project, query.all === 'true');
    return c.json(rows, 200);
  });
}
