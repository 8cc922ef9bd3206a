import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { execFileSync } from 'node:child_process';
import { dataDir } from '../../activities/process/paths.js';
import { connectTemporal } from '../../client/temporal/connect.js';
import { installTemporal, startTemporalServer } from './temporal-server.js';
import { connectWorker } from '../../worker/connection/connect-worker.js';
import { childPid } from '../loom/child-pid.js';
import { resolveTemporalTarget, type TemporalTarget } from '../../worker/connection/target.js';

/** The Temporal a bench or eval run measures on: the server the environment names, else a dev server of its own. */
export interface MeasuringTemporal {
  client: Client;
  /** `host:port`. */
  address: string;
  namespace: string;
  /** Where the address came from, for the line the run starts with. */
  source: string;
  /** The Temporal version measured on, for the results' `machine`. */
  version: string;
  /** The run's task queue: on a named server others may poll a fixed name too, so the run takes one of its own. */
  taskQueue: string;
  /** False when the namespace lacks Loom's search attributes and they could not be added: runs then set none. */
  searchAttributes: boolean;
  /** The dev server's process, whose CPU a benchmark can read; none for a server the environment names. */
  pid?: number;
  /** What spawned `loom` processes need on top of the user's environment to reach this server. */
  processEnv: NodeJS.ProcessEnv;
  connectWorker(): Promise<NativeConnection>;
  close(): Promise<void>;
}

/** Reads the `TEMPORAL_*` settings and profile as every Loom process does; `report` hears what is worth a line. */
export async function startMeasuringTemporal(report: (line: string) => void): Promise<MeasuringTemporal> {
  const target = resolveTemporalTarget(process.env);
  for (const warning of target.warnings) report(`warning: ${warning}`);
  return target.embedded ? ownDevServer() : namedServer(target, report);
}

async function ownDevServer(): Promise<MeasuringTemporal> {
  const env = await startTemporalServer();
  const port = env.address.slice(env.address.lastIndexOf(':') + 1);
  return {
    client: env.client,
    address: env.address,
    namespace: env.namespace ?? 'default',
    source: 'its own dev server: neither TEMPORAL_ADDRESS nor a profile names one',
    version: execFileSync(await installTemporal(), ['--version'], { encoding: 'utf8' }).trim(),
    taskQueue: 'bench',
    searchAttributes: true,
    pid: process.platform === 'linux' ? childPid(['start-dev', port]) : undefined,
    processEnv: { TEMPORAL_ADDRESS: env.address },
    connectWorker: () => NativeConnection.connect({ address: env.address }),
    close: () => env.teardown(),
  };
}

async function namedServer(target: TemporalTarget, report: (line: string) => void): Promise<MeasuringTemporal> {
  // As every Loom command reaches it: checked (a refusal is one line), its search attributes added or said missing.
  const { client, connection, searchAttributes } = await connectTemporal(target, report, {
    dataDir: dataDir(process.env),
  });
  try {
    const { serverVersion } = await connection.workflowService.getSystemInfo({});
    return {
      client,
      address: target.address,
      namespace: target.namespace,
      source: target.sources.address,
      version: `server ${serverVersion || 'of unknown version'} at ${target.address}, namespace ${target.namespace}`,
      taskQueue: `bench-${Date.now().toString(36)}`,
      searchAttributes,
      processEnv: {},
      connectWorker: () => connectWorker(target),
      close: () => connection.close(),
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
