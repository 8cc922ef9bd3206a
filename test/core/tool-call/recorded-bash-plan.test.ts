import { describe, expect, it } from 'vitest';
import { commandWords } from '../../../core/tool-call/recorded-bash-plan/command-words.js';
import { alwaysPattern, pathArguments, recordedBashPlan } from '../../../core/tool-call/recorded-bash-plan/plan.js';
import { splitCommands } from '../../../core/tool-call/recorded-bash-plan/split-commands.js';
import { wildcardMatch } from '../../../core/permission.js';

describe('splitCommands', () => {
  it.each([
    ['git status', ['git status']],
    ['git status && npm test', ['git status', 'npm test']],
    ['a || b; c | d & e', ['a', 'b', 'c', 'd', 'e']],
    ['a\nb\n\n  c  ', ['a', 'b', 'c']],
    ['  ;; && ', []],
    ['', []],
    ['other |& tee x', ['other', 'tee x']],
  ])('%j → %j', (line, expected) => {
    expect(splitCommands(line)).toEqual(expected);
  });

  it('does not split inside quotes', () => {
    expect(splitCommands(`echo "a && b; c | d" && ls`)).toEqual(['echo "a && b; c | d"', 'ls']);
    expect(splitCommands(`echo 'x;y|z&&w' ; pwd`)).toEqual([`echo 'x;y|z&&w'`, 'pwd']);
    expect(splitCommands(`echo $'it\\'s; fine' ; pwd`)).toEqual([`echo $'it\\'s; fine'`, 'pwd']);
  });

  it('keeps escaped quotes and separators inside the word', () => {
    expect(splitCommands(`echo "say \\"hi\\" && go" || true`)).toEqual([`echo "say \\"hi\\" && go"`, 'true']);
    expect(splitCommands(`echo a\\;b \\&\\& c; d`)).toEqual([`echo a\\;b \\&\\& c`, 'd']);
  });

  it('keeps $(...), backticks, ${...} and subshells whole', () => {
    expect(splitCommands('echo $(date && whoami) | tee out')).toEqual(['echo $(date && whoami)', 'tee out']);
    expect(splitCommands('echo $(echo ")" ; echo "(") ok; pwd')).toEqual(['echo $(echo ")" ; echo "(") ok', 'pwd']);
    expect(splitCommands('x=$((1 + (2; 3))) && y')).toEqual(['x=$((1 + (2; 3)))', 'y']);
    expect(splitCommands('echo `a; b` ; echo ${x:-a;b}')).toEqual(['echo `a; b`', 'echo ${x:-a;b}']);
    expect(splitCommands('(cd a && make) && echo ok')).toEqual(['(cd a && make)', 'echo ok']);
    expect(splitCommands('echo "$(git log | head; echo "x;y")" && pwd')).toEqual([
      'echo "$(git log | head; echo "x;y")"',
      'pwd',
    ]);
  });

  it('does not split at redirections that contain & or |', () => {
    expect(splitCommands('npm run dev > dev.log 2>&1 &')).toEqual(['npm run dev > dev.log 2>&1']);
    expect(splitCommands('cmd &> out.log; b >| f; c <&3')).toEqual(['cmd &> out.log', 'b >| f', 'c <&3']);
  });

  it('drops comments and joins continued lines', () => {
    expect(splitCommands('ls # a && b\npwd')).toEqual(['ls', 'pwd']);
    expect(splitCommands('echo a#b && c')).toEqual(['echo a#b', 'c']);
    expect(splitCommands('npm install \\\n  --save foo && ls')).toEqual(['npm install   --save foo', 'ls']);
  });

  it('keeps heredoc bodies with their command', () => {
    const line = `cat > f.py <<'EOF'\nimport os; os.system("rm")\nprint(1) && x\nEOF\necho done`;
    expect(splitCommands(line)).toEqual([
      `cat > f.py <<'EOF'\nimport os; os.system("rm")\nprint(1) && x\nEOF`,
      'echo done',
    ]);
    expect(splitCommands('cat <<-END | wc -l\n\ta; b\n\tEND\nls')).toEqual([
      'cat <<-END',
      'wc -l\n\ta; b\n\tEND',
      'ls',
    ]);
    expect(splitCommands('grep x <<< "a; b" && ls')).toEqual(['grep x <<< "a; b"', 'ls']);
  });

  it('reads a commit message heredoc inside $(...) with apostrophes', () => {
    const line = `git commit -m "$(cat <<'EOF'\nIt's done; really && truly\nEOF\n)" && git push`;
    expect(splitCommands(line)).toEqual([
      `git commit -m "$(cat <<'EOF'\nIt's done; really && truly\nEOF\n)"`,
      'git push',
    ]);
  });

  it('keeps an unterminated quote to the end of the line', () => {
    expect(splitCommands(`echo "a && b`)).toEqual([`echo "a && b`]);
  });
});

describe('commandWords', () => {
  it.each([
    ['git status', ['git', 'status']],
    ['  ls   -la  ', ['ls', '-la']],
    [`git commit -m "fix: a && b"`, ['git', 'commit', '-m', 'fix: a && b']],
    [`echo 'single "q"' "double 'q'"`, ['echo', 'single "q"', "double 'q'"]],
    [`echo "a \\"b\\" \\$c \\n"`, ['echo', 'a "b" $c \\n']],
    [`echo a\\ b \\"c`, ['echo', 'a b', '"c']],
    [`echo pre"mid"'end'`, ['echo', 'premidend']],
    [`echo "" ''`, ['echo', '', '']],
    [`echo $'it\\'s\\n'`, ['echo', "it's\n"]],
    ['echo $(date +%s) ${HOME} `whoami`', ['echo', '$(date +%s)', '${HOME}', '`whoami`']],
    ['VAR=1 FOO="a b" make test', ['make', 'test']],
    ['A+=x env B=2 cmd', ['env', 'B=2', 'cmd']],
    ['"FOO=1" cmd', ['FOO=1', 'cmd']],
    ['FOO=1', []],
    ['', []],
    ['echo hi > out.txt 2>&1', ['echo', 'hi']],
    ['echo hi>out.txt 2> /dev/null', ['echo', 'hi']],
    ['sort < in.txt >> out.txt', ['sort']],
    ['cmd &> log >&2 a', ['cmd', 'a']],
    ['cat <<EOF > x\nhello world\nEOF', ['cat']],
    ['grep x <<< "a b" file', ['grep', 'x', 'file']],
    ['echo 10 > n', ['echo', '10']],
    ['npm install \\\n  lodash', ['npm', 'install', 'lodash']],
  ])('%j → %j', (command, expected) => {
    expect(commandWords(command)).toEqual(expected);
  });
});

describe('alwaysPattern', () => {
  it.each([
    ['git commit -m "x"', 'git commit *'],
    ['git status', 'git status *'],
    ['git', 'git *'],
    ['git stash pop', 'git stash pop *'],
    ['npm run dev -- --port 3000', 'npm run dev *'],
    ['npm install lodash', 'npm install *'],
    ['npm test', 'npm test *'],
    ['pnpm run build', 'pnpm run build *'],
    ['yarn add react', 'yarn add *'],
    ['bun run dev', 'bun run dev *'],
    ['npx vitest run', 'npx vitest *'],
    ['docker run nginx', 'docker run *'],
    ['docker compose up -d', 'docker compose up *'],
    ['kubectl get pods', 'kubectl get *'],
    ['cargo build --release', 'cargo build *'],
    ['go test ./...', 'go test *'],
    ['pip install numpy', 'pip install *'],
    ['uv run pytest -x', 'uv run pytest *'],
    ['poetry add requests', 'poetry add *'],
    ['gh pr list', 'gh pr list *'],
    ['terraform apply', 'terraform apply *'],
    ['python script.py', 'python *'],
    ['node index.js', 'node *'],
    ['make test', 'make *'],
    ['VAR=1 make test', 'make *'],
    ['ls -la', 'ls *'],
    ['./run.sh arg', './run.sh *'],
    ['', ''],
  ])('%j → %j', (command, expected) => {
    expect(alwaysPattern(command)).toBe(expected);
  });

  it('keeps quotes as written, so the pattern matches the command it came from', () => {
    const command = 'npm run "my task" --x';
    expect(alwaysPattern(command)).toBe('npm run "my task" *');
    expect(wildcardMatch(command, alwaysPattern(command))).toBe(true);
  });

  it('matches the command it came from, and others like it', () => {
    for (const command of ['git commit -m "x"', 'npm run dev', 'docker run nginx', 'python a.py', 'ls']) {
      expect(wildcardMatch(command, alwaysPattern(command))).toBe(true);
    }
    expect(wildcardMatch('git commit --amend', alwaysPattern('git commit -m x'))).toBe(true);
    expect(wildcardMatch('git push', alwaysPattern('git commit -m x'))).toBe(false);
  });
});

describe('pathArguments', () => {
  it.each([
    ['rm -rf /tmp/x ../y', ['/tmp/x', '../y']],
    ['cd ~/x', ['~/x']],
    ['cd', []],
    ['cd -', []],
    ['cp -r "a b" /dst/', ['a b', '/dst/']],
    ['mv --force a b', ['a', 'b']],
    ['mkdir -p /opt/app', ['/opt/app']],
    ['rmdir x', ['x']],
    ['touch a b', ['a', 'b']],
    ['ln -s /etc/hosts link', ['/etc/hosts', 'link']],
    ['cat - a', ['a']],
    ['ls -la /etc', ['/etc']],
    ['tee -a "/tmp/a b"', ['/tmp/a b']],
    ['cp -- -weird /dst', ['-weird', '/dst']],
    ['chmod +x ./a.sh', ['./a.sh']],
    ['chmod -R 755 /etc/x', ['/etc/x']],
    ['chmod --reference=a b', ['b']],
    ['chown user:group /a /b', ['/a', '/b']],
    ['FOO=1 rm /x', ['/x']],
    ['rm $HOME/x', ['$HOME/x']],
    ['cat a > /etc/passwd', ['a']],
    ['find / -name "*.ts"', ['/', '*.ts']],
    ['git add a', []],
    ['echo /etc/passwd', []],
    ['', []],
  ])('%j → %j', (command, expected) => {
    expect(pathArguments(command)).toEqual(expected);
  });
});

// The plan runs recorded before the model activity planned calls replay with (test/replay); it must not change.
describe('recordedBashPlan', () => {
  const context = { directory: '/work/project' };

  it('checks each command of a bash line, offering its prefix for "always"', () => {
    expect(recordedBashPlan('git add -A && git commit -m "wip; fix"', undefined, context)).toEqual([
      {
        permission: 'bash',
        patterns: ['git add -A', 'git commit -m "wip; fix"'],
        always: ['git add *', 'git commit *'],
      },
    ]);
    expect(recordedBashPlan('npm run test -- --watch=false', undefined, context)[0].always).toEqual(['npm run test *']);
  });

  it('asks external_directory for a working folder or a path argument outside the project', () => {
    expect(recordedBashPlan('ls', '/tmp', context)[0]).toEqual({
      permission: 'external_directory',
      patterns: ['/tmp/*'],
      always: ['/tmp/*'],
    });
    expect(recordedBashPlan('rm ../secrets/key', undefined, context)[0].patterns).toEqual(['/work/secrets/*']);
    expect(recordedBashPlan('cat src/a.ts', undefined, context)).toHaveLength(1);
  });

  it('reads no in-place editor or git setting, as it did not then', () => {
    expect(recordedBashPlan('sed -i s/a/b/ /etc/x', undefined, context)).toEqual([
      { permission: 'bash', patterns: ['sed -i s/a/b/ /etc/x'], always: ['sed *'] },
    ]);
    expect(recordedBashPlan("git -c alias.x='!touch /tmp/x' x", undefined, context)).toEqual([
      { permission: 'bash', patterns: ["git -c alias.x='!touch /tmp/x' x"], always: ['git -c *'] },
    ]);
  });
});
