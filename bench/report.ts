import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { summarize, type Row, type Summary } from './stats.js';

/** What the numbers were measured on: they mean something only next to each other, and to this. */
export function describeMachine(temporal: string) {
  const cpu = cpus();
  let commit: string | undefined;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    commit = undefined; // Not a git checkout.
  }
  return {
    cpu: `${cpu[0]?.model ?? 'unknown'} × ${cpu.length}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${process.platform} ${release()}`,
    node: process.version,
    temporal,
    commit,
  };
}

const format = (value: number) =>
  Number.isNaN(value) ? '—' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/** The results as a table: one row per measurement, median then min and max of the runs. */
export function table(summaries: Summary[]): string {
  const header = ['benchmark', 'median', 'min', 'max', 'unit', ''];
  const body = summaries.map((s) => [s.name, format(s.median), format(s.min), format(s.max), s.unit, s.note ?? '']);
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((row) => row[column].length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column >= 1 && column <= 3 ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '─'.repeat(w))), ...body.map(line)].join('\n');
}

export function writeResults(
  path: string,
  rows: Row[],
  machine: Record<string, unknown>,
  settings: Record<string, unknown>,
  skipped: string[],
): Summary[] {
  const summaries = rows.filter((row) => row.samples.length > 0).map(summarize);
  const results = { date: new Date().toISOString(), machine, settings, skipped, results: summaries };
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  return summaries;
}
