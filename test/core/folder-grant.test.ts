import { describe, expect, it } from 'vitest';
import { grantWords, writablePaths } from '../../core/rules/folder-grant.js';
import type { PermissionRequest } from '../../core/rules/permission.js';

const ask = (patterns: string[], grant?: PermissionRequest['grant']): PermissionRequest => ({
  permission: 'external_directory',
  patterns,
  always: patterns,
  ...(grant ? { grant } : {}),
});

describe('what an external_directory approval opens', () => {
  it('opens what the grant says: nothing for a read, the folders and files of a write', () => {
    expect(writablePaths(ask(['/etc/*'], { access: 'read' }))).toEqual([]);
    expect(
      writablePaths(
        ask(['/srv/out/*', '/home/u/*'], {
          access: 'write',
          folders: ['/srv/out'],
          files: ['/home/u/notes.txt'],
          closed: [],
        }),
      ),
    ).toEqual(['/srv/out', '/home/u/notes.txt']);
    expect(writablePaths({ permission: 'bash', patterns: ['ls'], always: [] })).toEqual([]);
  });

  it('opens the folders of the patterns of a request without a grant, as before, none computed by the shell', () => {
    expect(writablePaths(ask(['/srv/out/*', '$HOME/*', '{a,/etc}/*']))).toEqual(['/srv/out']);
  });

  it('says what approving grants', () => {
    expect(grantWords(ask(['/etc/*', '/usr/share/*'], { access: 'read' }), 'bash')).toEqual([
      'read access to /etc, /usr/share',
    ]);
    expect(
      grantWords(
        ask(['/srv/out/*', '/home/u/*', '$HOME/*'], {
          access: 'write',
          folders: ['/srv/out'],
          files: ['/home/u/notes.txt'],
          closed: [{ path: '$HOME/x', why: 'known only when the line runs' }],
        }),
        'bash',
      ),
    ).toEqual([
      'write access to /srv/out',
      'write access to the file /home/u/notes.txt only (not the folder /home/u)',
      'no write access in the sandbox to $HOME/x (known only when the line runs): writing it needs the command run outside the sandbox',
    ]);
    // Without a grant: a bash call's folders were writable; a file tool's access is its tool's.
    expect(grantWords(ask(['/srv/*']), 'bash')).toEqual(['write access to /srv']);
    expect(grantWords(ask(['/srv/*']), 'read')).toEqual(['read access to /srv']);
    expect(grantWords(ask(['/srv/*']), 'edit')).toEqual(['write access to /srv']);
  });
});
