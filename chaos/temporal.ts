// The Temporal a chaos run uses: a dev server of its own (a SQLite file, so its state survives
// the stop and start the faults put it through), or the server the environment names, used as
// every Loom process would use it and never restarted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureOutput } from '../dev-server/output.js';
import { runDevServer } from '../dev-server/run.js';
import { freePort } from '../testkit/network/free-port.js';
import type { TemporalTarget } from '../worker/connection/target.js';

export interface ChaosTemporal {
  /** `host:port`. */
  address: string;
  namespace: string;
  /** The run's own dev server, which the Temporal-restart fault stops and starts. */
  devServer?: TemporalDevServer;
  /** The server `TEMPORAL_ADDRESS` or a profile names, when the run uses it. */
  named?: TemporalTarget;
}

/** The named server, or a dev server of the run's own keeping its data in `dataDir` (not started yet). */
export async function chaosTemporal(named: TemporalTarget | undefined, dataDir: string): Promise<ChaosTemporal> {
  if (named) return { address: named.address, namespace: named.namespace, named };
  const devServer = new TemporalDevServer(await freePort(), await freePort(), dataDir);
  return { address: devServer.address, namespace: 'default', devServer };
}

/**
 * What workers need over the user's environment: the own server's address,
 * or nothing, as the user's `TEMPORAL_*` name the server.
 */
export function workerTemporalEnv(temporal: ChaosTemporal): NodeJS.ProcessEnv {
  return temporal.devServer ? { TEMPORAL_ADDRESS: temporal.address } : {};
}

/** A dev server of the run's own, started and stopped as `temporal-dev.sh` does (dev-server/). */
export class TemporalDevServer {
  constructor(
    readonly port: number,
    private readonly uiPort: number,
    private readonly dataDir: string,
  ) {}

  get address() {
    return `127.0.0.1:${this.port}`;
  }

  /** The server's process id, from the pid file `temporal-dev.sh` keeps (undefined when stopped). */
  pid(): number | undefined {
    try {
      return (
        Number(readFileSync(join(this.dataDir, 'temporal', `server-${this.port}.pid`), 'utf8').trim()) || undefined
      );
    } catch {
      return undefined;
    }
  }

  private async script(command: 'start' | 'stop') {
    const output = captureOutput();
    const args = [command, '--port', String(this.port), '--ui-port', String(this.uiPort), '--data-dir', this.dataDir];
    const code = await runDevServer(args, process.env, output);
    if (code !== 0) throw new Error(`temporal-dev.sh ${args.join(' ')} failed:\n${output.stderr()}`);
    return output.stdout();
  }

  start() {
    return this.script('start');
  }

  stop() {
    return this.script('stop');
  }
}
