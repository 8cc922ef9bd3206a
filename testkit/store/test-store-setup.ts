import type { TestProject } from 'vitest/node';
import { startTestPostgres } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the PostgreSQL this setup started for the run (absent outside the `postgres` project). */
    postgresUrl?: string;
  }
}

/** One PostgreSQL for the run of the `postgres` project; each test env creates its own database on it. */
export default async function setup(project: TestProject) {
  const server = await startTestPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
