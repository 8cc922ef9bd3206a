import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { safeGit } from './safe-git.js';

/** The most git may print: a whole blob when a file is restored. */
const MAX_OUTPUT = 256 * 1024 * 1024;

/**
 * A git repository of Loom's own that keeps snapshots of a project's files: its objects live under
 * Loom's data folder, its work tree is the project. The project's own `.git` is never read or
 * written (its configuration, hooks and filters never apply), and a project that is no git
 * repository is snapshotted the same way.
 */
export class ShadowGit {
  constructor(
    /** The shadow repository (`<data>/snapshots/<digest of the project folder>`). */
    readonly gitDir: string,
    /** The project folder whose files are snapshotted. */
    readonly workTree: string,
    /**
     * Whose snapshots these are: each session stages into an index of its own (so sessions never
     * contend) and keeps its snapshots reachable from a ref of its own (so collecting keeps them).
     */
    readonly owner = 'shared',
  ) {
    if (!/^[A-Za-z0-9_-]+$/.test(owner)) throw new Error(`Not a session id for snapshots: "${owner}"`);
  }

  /** The shadow repository of a project folder, under `snapshotsDir`. */
  static of(snapshotsDir: string, workTree: string, owner?: string): ShadowGit {
    return new ShadowGit(
      join(snapshotsDir, createHash('sha256').update(workTree).digest('hex').slice(0, 24)),
      workTree,
      owner,
    );
  }

  get indexFile(): string {
    return join(this.gitDir, `index-${this.owner}`);
  }

  /** The owner's last snapshot and the commit that keeps it (`<tree> <commit>`), beside its index. */
  get headFile(): string {
    return `${this.indexFile}.head`;
  }

  /** Every session's index in the repository. */
  sessionIndexes(): string[] {
    return readdirSync(this.gitDir)
      .filter((name) => /^index-[^.]+$/.test(name))
      .map((name) => join(this.gitDir, name));
  }

  /** The ref whose history holds every snapshot the owner took. */
  get ref(): string {
    return `refs/loom/${this.owner}`;
  }

  /** Creates the repository on first use: made aside, then moved into place, so sessions starting at once share one. */
  async ensure(): Promise<void> {
    if (existsSync(join(this.gitDir, 'HEAD'))) return;
    mkdirSync(dirname(this.gitDir), { recursive: true });
    const aside = `${this.gitDir}.new-${randomBytes(6).toString('hex')}`;
    await new ShadowGit(aside, this.workTree, this.owner).run(
      ['init', '--quiet', '--bare', '--template=', aside],
      undefined,
      false,
    );
    try {
      renameSync(aside, this.gitDir);
    } catch (error) {
      rmSync(aside, { recursive: true, force: true });
      if (!existsSync(join(this.gitDir, 'HEAD'))) throw error;
    }
  }

  /** Runs git on the shadow repository and the project (`safeGit`); rejects with git's own message. */
  async run(args: string[], input?: Buffer | string, onWorkTree = true): Promise<Buffer> {
    return safeGit(args, {
      options: [
        '--git-dir',
        this.gitDir,
        ...(onWorkTree ? ['--work-tree', this.workTree] : []),
        '-c',
        'core.quotePath=false',
      ],
      cwd: this.workTree,
      where: `in the snapshots of ${this.workTree}`,
      input,
      maxBuffer: MAX_OUTPUT,
      env: {
        GIT_INDEX_FILE: this.indexFile,
        // Paths are file names, never patterns: `a*.ts` names one file.
        GIT_LITERAL_PATHSPECS: '1',
      },
    });
  }
}

/** NUL-separated fields of git's `-z` output. */
export function nulFields(output: Buffer): string[] {
  const text = output.toString('utf8');
  return text.split('\0').filter((field) => field !== '');
}
