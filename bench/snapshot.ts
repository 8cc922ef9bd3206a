import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShadowGit } from '../activities/snapshot/shadow-git.js';
import { trackFiles } from '../activities/snapshot/track.js';
import { repeat, type Row } from './stats.js';

const FILES = 10_000;
/** Snapshots per sample: one takes milliseconds. */
const SNAPSHOTS = 10;

/**
 * What a step's snapshot costs in a project of 10,000 files: when nothing changed (every step that
 * only read), and when one file changed (goal: under 50 ms per step). The first snapshot of a
 * project, which reads every file, is timed once.
 */
export async function snapshotCost(runs: number): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), 'loom-snapshot-bench-'));
  const project = join(root, 'project');
  for (let file = 0; file < FILES; file++) {
    const folder = join(project, `package-${file % 100}`, `module-${Math.floor(file / 100) % 10}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file-${file}.ts`), `export const value${file} = ${file};\n`);
  }
  const git = ShadowGit.of(join(root, 'snapshots'), project, 'ses_bench');
  try {
    const started = performance.now();
    await trackFiles(git);
    const first = performance.now() - started;
    let edit = 0;
    const perSnapshot = async (change: boolean) => {
      const begun = performance.now();
      for (let snapshot = 0; snapshot < SNAPSHOTS; snapshot++) {
        if (change)
          writeFileSync(join(project, 'package-0', 'module-0', 'file-0.ts'), `export const edit = ${edit++};\n`);
        await trackFiles(git);
      }
      return (performance.now() - begun) / SNAPSHOTS;
    };
    const samples = await repeat(runs, async () => ({
      unchanged: await perSnapshot(false),
      oneFile: await perSnapshot(true),
    }));
    return [
      {
        name: `snapshot, ${FILES.toLocaleString('en-US')} files, nothing changed`,
        unit: 'ms',
        samples: samples.unchanged,
        note: `per step, ${SNAPSHOTS} a sample; goal under 50 ms`,
      },
      {
        name: `snapshot, ${FILES.toLocaleString('en-US')} files, one file changed`,
        unit: 'ms',
        samples: samples.oneFile,
      },
      {
        name: `first snapshot of ${FILES.toLocaleString('en-US')} files`,
        unit: 'ms',
        samples: [first],
        note: 'reads every file once',
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
