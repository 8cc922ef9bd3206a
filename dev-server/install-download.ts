import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { isTemporalCli } from './cli-find.js';
import { DOWNLOAD_SIZE, INSTALLED_SIZE } from './config.js';
import { lastLines, runProgram } from './exec.js';
import { megabytes, watchProgress } from './install-progress.js';
import { InstallFailed, placeBinary, type InstallContext } from './install-step.js';
import type { Output } from './output.js';

const OS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin' };
const CPU: Partial<Record<NodeJS.Architecture, string>> = { x64: 'amd64', arm64: 'arm64' };

/** Downloads the official release archive for this machine and takes the binary in it. */
export async function installWithDownload({ installRoot, env, settings, output }: InstallContext): Promise<void> {
  const os = OS[process.platform];
  const arch = CPU[process.arch];
  if (!os) throw new InstallFailed(`unsupported OS ${process.platform}`);
  if (!arch) throw new InstallFailed(`unsupported CPU architecture ${process.arch}`);
  const url = `${settings.downloadUrl}${settings.downloadUrl.includes('?') ? '&' : '?'}platform=${os}&arch=${arch}`;
  const folder = join(installRoot, `download.tmp.${process.pid}`);
  const archive = join(folder, 'cli.tar.gz');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  try {
    await download(url, archive, installRoot, output);
    const unpacked = await runProgram('tar', ['-xzf', archive, '-C', folder], { env });
    if (!unpacked.ok || !(await isTemporalCli(join(folder, 'temporal'), env))) {
      throw new InstallFailed('the archive did not contain a working temporal binary', lastLines(unpacked.stderr));
    }
    placeBinary(join(folder, 'temporal'), installRoot);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function download(url: string, file: string, installRoot: string, output: Output): Promise<void> {
  let stop = () => undefined as void;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(600_000) });
    if (!response.ok || !response.body)
      throw new InstallFailed(`${url} answered HTTP ${response.status} ${response.statusText}`.trim());
    const total = Number(response.headers.get('content-length')) || undefined;
    output.progress(
      `Downloading the Temporal CLI (${total ? megabytes(total) : DOWNLOAD_SIZE}, ${INSTALLED_SIZE} unpacked) from ${url} into ${installRoot} …`,
    );
    let bytes = 0;
    stop = watchProgress(output, 'downloaded', () => ({ bytes, total }));
    await pipeline(
      Readable.fromWeb(response.body as ReadableStream),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          bytes += chunk.length;
          yield chunk;
        }
      },
      createWriteStream(file),
    );
  } catch (error) {
    if (error instanceof InstallFailed) throw error;
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new InstallFailed(`fetching ${url} failed: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
  } finally {
    stop();
  }
}
