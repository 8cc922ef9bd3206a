import { CLIENT_TIMEOUT_MS } from './config.js';
import { DevServerError } from './errors.js';
import { runProgram, type RunResult } from './exec.js';
import type { Output } from './output.js';
import { SEARCH_ATTRIBUTES } from './search-attributes.js';

/** The Temporal CLI's client commands against one address, in the default namespace. */
export class TemporalClient {
  private constructor(
    readonly cli: string,
    readonly address: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly flags: string[],
  ) {}

  /**
   * Newer CLIs would otherwise apply the user's Temporal config and env (API keys, TLS, profiles)
   * to local connections and wait 8 s or more for a port that does not speak gRPC.
   */
  static async open(cli: string, address: string, env: NodeJS.ProcessEnv): Promise<TemporalClient> {
    const options = (await runProgram(cli, ['options'], { env, timeoutMs: CLIENT_TIMEOUT_MS })).stdout;
    const flags = [
      ...(options.includes('--disable-config-file') ? ['--disable-config-file', '--disable-config-env'] : []),
      ...(options.includes('--command-timeout') ? ['--command-timeout', '5s'] : []),
    ];
    return new TemporalClient(cli, address, env, flags);
  }

  run(args: string[]): Promise<RunResult> {
    return runProgram(this.cli, [...args, '--address', this.address, '--namespace', 'default', ...this.flags], {
      env: this.env,
      timeoutMs: CLIENT_TIMEOUT_MS,
    });
  }

  async healthy(): Promise<boolean> {
    const result = await this.run(['operator', 'cluster', 'health']);
    return result.ok && result.stdout.includes('SERVING');
  }

  /** Registers every Loom search attribute missing from the default namespace. */
  async ensureSearchAttributes(output: Output, dbFile: string): Promise<void> {
    let listing = await this.listSearchAttributes();
    let created = false;
    for (const { name, type } of SEARCH_ATTRIBUTES) {
      const existing = listing.get(name);
      if (existing === undefined) {
        output.log(`registering search attribute ${name} (${type})`);
        const result = await this.run(['operator', 'search-attribute', 'create', '--name', name, '--type', type]);
        if (!result.ok)
          throw new DevServerError(
            `could not create search attribute ${name} (${type}) on ${this.address}: ${combined(result)}`,
          );
        created = true;
      } else if (existing !== type) {
        throw new DevServerError(
          `search attribute ${name} exists with type ${existing} but Loom needs ${type}; use a fresh --data-dir (or delete ${dbFile})`,
        );
      }
    }
    if (!created) return;
    listing = await this.listSearchAttributes();
    const missing = SEARCH_ATTRIBUTES.find(({ name }) => !listing.has(name));
    if (missing) throw new DevServerError(`search attribute ${missing.name} is still missing after creating it`);
  }

  /** Name → type, from `operator search-attribute list`'s table. */
  private async listSearchAttributes(): Promise<Map<string, string>> {
    const result = await this.run(['operator', 'search-attribute', 'list']);
    if (!result.ok)
      throw new DevServerError(`could not list search attributes on ${this.address}: ${combined(result)}`);
    const rows = result.stdout.split('\n').map((line) => line.trim().split(/\s+/));
    return new Map(rows.filter((row) => row.length >= 2).map(([name, type]) => [name, type] as [string, string]));
  }
}

function combined(result: RunResult): string {
  return (result.stdout + result.stderr).trim() || result.failure;
}
