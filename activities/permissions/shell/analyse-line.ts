import { analyse, type ShellAnalysis } from './commands.js';
import { withSyntaxTree } from './parser.js';

/** How deep `bash -c "bash -c '…'"` is followed before the line asks as a whole. */
const SCRIPT_DEPTH = 4;

/** Every command a shell line would run, the scripts it hands to `bash -c` and the like included. */
export async function analyseLine(line: string, depth = 0): Promise<ShellAnalysis> {
  const analysis = await withSyntaxTree(line, (root): ShellAnalysis =>
    root
      ? analyse(root)
      : {
          commands: [],
          redirects: [],
          unsupported: ['the shell parser could not read the line'],
          scripts: [],
          syntaxError: true,
        },
  );
  for (const script of analysis.scripts) {
    if (depth >= SCRIPT_DEPTH) {
      analysis.unsupported.push('scripts run by scripts are nested too deep to follow');
      continue;
    }
    const inner = await analyseLine(script, depth + 1);
    analysis.commands.push(...inner.commands);
    analysis.redirects.push(...inner.redirects);
    analysis.unsupported.push(
      ...inner.unsupported.map((reason) => (inner.syntaxError ? `a script the line runs: ${reason}` : reason)),
    );
  }
  return analysis;
}
