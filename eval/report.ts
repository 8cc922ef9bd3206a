import type { RunResult } from './result.js';

/** One column per agent and model: `Loom · local/qwen2.5-coder-1.5b-instruct`. */
const columnOf = (result: RunResult) => `${result.agent} · ${result.model}`;

const seconds = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

function tableOf(header: string[], body: string[][]): string {
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((row) => row[column].length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '─'.repeat(width))), ...body.map(line)].join('\n');
}

/**
 * Per task and per agent/model: runs passed, mean time and mean tokens (prompt in, answer out);
 * then the pass rate over the suite. Markdown-ready when `markdown` (for the README).
 */
export function evalTable(results: RunResult[], markdown = false): string {
  const columns = [...new Set(results.map(columnOf))];
  const tasks = [...new Set(results.map((result) => result.task))];
  const header = ['task', ...columns.flatMap((column) => [`${column}: passed`, 'time s', 'tokens in/out'])];
  const cell = (runs: RunResult[]) => {
    if (runs.length === 0) return ['—', '—', '—'];
    const mean = (pick: (run: RunResult) => number) => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
    return [
      `${runs.filter((run) => run.passed).length}/${runs.length}`,
      seconds(mean((run) => run.seconds)),
      `${Math.round(mean((run) => run.tokens.input))}/${Math.round(mean((run) => run.tokens.output))}`,
    ];
  };
  const body = tasks.map((task) => [
    task,
    ...columns.flatMap((column) =>
      cell(results.filter((result) => result.task === task && columnOf(result) === column)),
    ),
  ]);
  const totals = columns.flatMap((column) => {
    const runs = results.filter((result) => columnOf(result) === column);
    const passed = runs.filter((run) => run.passed).length;
    return [
      `${passed}/${runs.length} (${Math.round((100 * passed) / Math.max(1, runs.length))}%)`,
      seconds(runs.reduce((sum, run) => sum + run.seconds, 0)),
      '',
    ];
  });
  body.push(['all', ...totals]);
  if (!markdown) return tableOf(header, body);
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [row(header), row(header.map((_, column) => (column === 0 ? '---' : '---:'))), ...body.map(row)].join('\n');
}

/** Why each failed run failed, in a line or two: its status, error and what its check printed. */
export function failures(results: RunResult[]): string[] {
  return results
    .filter((result) => !result.passed)
    .map((result) => {
      const why = [result.status, result.error, result.checkOutput?.split('\n').slice(-2).join(' ⏎ ')]
        .filter(Boolean)
        .join(' · ');
      const answer = result.answer.replace(/\s+/g, ' ').slice(0, 160);
      return `${columnOf(result)} ${result.task} #${result.attempt}: ${why}\n    tools: ${result.tools.join(', ') || 'none'} · answer: ${answer || '(none)'}`;
    });
}
