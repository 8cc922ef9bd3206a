import { describe, expect, it } from 'vitest';
import { alwaysPattern, gitSettingKind, type CommandWord } from '../../core/rules/shell-commands.js';

/** Words as the parser gives them: quotes kept in `raw`, dropped in `value`; none for an expansion. */
const word = (raw: string): CommandWord => (raw.includes('$') ? { raw } : { raw, value: raw.replace(/["']/g, '') });
const words = (...raws: string[]) => raws.map(word);

describe('alwaysPattern', () => {
  it.each([
    [words('git', 'commit', '-m', '"x"'), 'git commit *'],
    [words('git'), 'git *'],
    [words('git', 'stash', 'pop'), 'git stash pop *'],
    [words('npm', 'run', 'dev', '--', '--port', '3000'), 'npm run dev *'],
    [words('docker', 'compose', 'up', '-d'), 'docker compose up *'],
    [words('python', 'script.py'), 'python *'],
    [words('npm', 'run', '"my task"', '--x'), 'npm run "my task" *'],
    [words('$TOOL', 'run'), '$TOOL *'],
    [[], ''],
  ])('%j → %j', (command, expected) => {
    expect(alwaysPattern(command)).toBe(expected);
  });
});

describe('gitSettingKind', () => {
  it.each([
    ['alias.st', 'command'],
    ['core.pager', 'command'],
    ['Core.SSHCommand', 'command'],
    ['diff.img.textconv', 'command'],
    ['filter.a.b.smudge', 'command'],
    ['credential.https://example.com.helper', 'command'],
    ['pager.log', 'command'],
    ['core.hooksPath', 'hidden'],
    ['includeIf.gitdir:~/work/.path', 'hidden'],
    ['protocol.ext.allow', 'hidden'],
    ['user.name', undefined],
    ['protocol.file.allow', undefined],
    ['diff.textconv', undefined],
  ])('%s → %s', (key, kind) => {
    expect(gitSettingKind(key)).toBe(kind);
  });
});
