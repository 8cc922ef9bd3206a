import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { aptInstall } from '../install/apt.js';
import { findExecutable } from '../install/executables.js';
import { nginxConfig, type NginxConfigOptions } from './nginx-config.js';

export interface RunningNginx {
  stop(): Promise<void>;
}

/** nginx on PATH or in /usr/sbin, else Debian's nginx package, installed here with apt-get. */
export function findNginx(env: NodeJS.ProcessEnv = process.env): string {
  const found = locate(env);
  if (found) return found;
  aptInstall('nginx', 'No nginx found (the TLS test endpoint runs one; put nginx on PATH)');
  disableSystemNginx();
  const installed = locate(env);
  if (!installed)
    throw new Error(
      `apt-get installed the nginx package, but nginx is neither on PATH (${env.PATH}) nor at /usr/sbin/nginx.`,
    );
  return installed;
}

/**
 * Runs nginx with a generated config as one child process (no master, no daemon) and resolves once
 * both listeners accept connections.
 */
export async function startNginx(binary: string, options: NginxConfigOptions): Promise<RunningNginx> {
  const { dir } = options;
  mkdirSync(join(dir, 'temp'), { recursive: true });
  const configPath = join(dir, 'nginx.conf');
  writeFileSync(configPath, nginxConfig(options));
  // -e: the error log nginx opens before it reads the config (Debian's default is /var/log/nginx).
  const child = spawn(binary, ['-p', dir, '-c', configPath, '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // If the test process ends without stop() (a crash, a timeout), nginx must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  const failure = () => {
    const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
    return new Error(
      `nginx (${binary} -c ${configPath}) did not start: ${(stderr + log).trim().slice(-2000) || `exit ${child.exitCode ?? child.signalCode}`}`,
    );
  };
  const deadline = Date.now() + 10_000;
  for (const port of [options.apiKeyPort, options.mtlsPort]) {
    while (!(await accepts(port))) {
      if (child.exitCode !== null || child.signalCode !== null) throw failure();
      if (Date.now() > deadline) {
        await stop();
        throw failure();
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return { stop };
}

function locate(env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(['nginx'], env, ['/usr/sbin']);
}

/**
 * Debian's postinst starts the packaged nginx on port 80 wherever the init system lets it (a CI
 * machine with systemd; not a container whose policy-rc.d forbids it) and enables it at boot. The
 * tests run their own nginx, so the system's is stopped and disabled; failures here change nothing.
 */
function disableSystemNginx(): void {
  const commands = existsSync('/run/systemd/system')
    ? [['systemctl', 'disable', '--now', 'nginx']]
    : [
        ['invoke-rc.d', 'nginx', 'stop'],
        ['update-rc.d', 'nginx', 'disable'],
      ];
  for (const [command, ...args] of commands) spawnSync(command!, args, { stdio: 'ignore' });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
