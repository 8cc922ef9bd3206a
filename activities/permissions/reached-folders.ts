import { statSync } from 'node:fs';
import { patternFolders } from '../../core/rules/folder-grant.js';
import { dirnamePath, isInsidePath } from '../../core/text/path.js';
import type { FolderGrant, PermissionRequest } from '../../core/rules/permission.js';

/** How a command reaches a path: as a folder it works in or as a file, writing or reading. */
export interface Reach {
  folder: boolean;
  write: boolean;
  /** It writes into the path when that is a folder (`cp a dest`). */
  into?: boolean;
}

/**
 * The folders outside the project a bash line reaches, for writing or only for reading, and what
 * approving opens in its sandbox: the folders it writes in, but never the home folder, `/` or a
 * folder holding the home folder, where a grant would let the rest of the line (a script, an
 * interpreter no parser reads) write anywhere. There a file that exists opens alone, and a new one
 * cannot be made in the sandbox. Paths are real (links resolved).
 */
export class ReachedFolders {
  private readonly written = new Set<string>();
  private readonly read = new Set<string>();
  private readonly folders = new Set<string>();
  private readonly files = new Set<string>();
  private readonly closed = new Map<string, string>();

  constructor(
    private readonly project: string,
    private readonly home: string,
  ) {}

  /** A path only the running shell knows (`$HOME/x`, `{a,/etc}`): outside, and nothing to open. */
  unknown(raw: string, reach: Reach): void {
    const folder = reach.folder || !raw.includes('/') || /[{}]/.test(raw) ? raw : dirnamePath(raw);
    if (!reach.write) this.read.add(folder);
    else {
      this.written.add(folder);
      this.closed.set(raw, 'known only when the line runs');
    }
  }

  /** A path the line names, links resolved. */
  known(path: string, reach: Reach): void {
    const kind = statSync(path, { throwIfNoEntry: false });
    // A file is a file, whatever the command (`ls file`); a folder a file goes into is the folder.
    const isFolder = reach.folder ? !kind || kind.isDirectory() : (reach.into ?? false) && kind?.isDirectory();
    const folder = isFolder ? path : dirnamePath(path);
    if (isInsidePath(this.project, folder)) return;
    if (!reach.write) {
      this.read.add(folder);
      return;
    }
    this.written.add(folder);
    const guarded = this.guarded(folder);
    if (!guarded) this.folders.add(folder);
    else if (isFolder) this.closed.set(folder, guarded.itself);
    else if (kind && !kind.isDirectory()) this.files.add(path);
    else this.closed.set(path, guarded.newFile);
  }

  /**
   * The asks: one for the folders written, then one for those only read. The write's grant is left
   * out when it opens just the folders of its patterns, which a request without one means.
   */
  requests(): PermissionRequest[] {
    const asked = (folders: Iterable<string>) => [...folders].map((folder) => `${folder.replace(/\/$/, '')}/*`);
    const requests: PermissionRequest[] = [];
    if (this.written.size > 0) {
      const patterns = asked(this.written);
      const grant: FolderGrant = {
        access: 'write',
        folders: [...this.folders],
        files: [...this.files],
        closed: [...this.closed].map(([path, why]) => ({ path, why })),
      };
      const plain =
        grant.files.length === 0 &&
        grant.closed.length === 0 &&
        patternFolders(patterns).join('\n') === grant.folders.join('\n');
      requests.push({ permission: 'external_directory', patterns, always: patterns, ...(plain ? {} : { grant }) });
    }
    const reads = [...this.read].filter((folder) => !this.written.has(folder));
    if (reads.length > 0) {
      const patterns = asked(reads);
      requests.push({ permission: 'external_directory', patterns, always: patterns, grant: { access: 'read' } });
    }
    return requests;
  }

  /** Why a folder may not be opened for writing, or a file made in it, in words; `undefined` when it may. */
  private guarded(folder: string): { itself: string; newFile: string } | undefined {
    if (folder === this.home)
      return { itself: 'the home folder itself', newFile: 'a new file directly in the home folder' };
    if (folder === '/') return { itself: '/ itself', newFile: 'a new file directly in /' };
    if (!this.home.startsWith(`${folder}/`)) return undefined;
    return {
      itself: 'it holds the home folder',
      newFile: `a new file directly in ${folder}, which holds the home folder`,
    };
  }
}
