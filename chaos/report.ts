import type { Findings } from './checks.js';
import type { FaultLog } from './faults.js';
import type { FaultCounts } from './script.js';

export interface ChaosReport {
  faults: FaultLog;
  model: FaultCounts;
  findings: Findings;
  /** Workers that exited without being killed. */
  workerCrashes: number;
  seconds: { setup: number; faults: number; settle: number; checks: number; total: number };
  /** True when nothing was lost, duplicated or left stuck, and every task and ask went through. */
  ok: boolean;
  /**
   * Where a failed run's folder was kept (worker logs, the dev server's
   * database when the run had its own, the workspace).
   */
  kept?: string;
}

export function isClean(f: Findings): boolean {
  return (
    f.lost === 0 &&
    f.duplicated === 0 &&
    f.sideEffectsDuplicated === 0 &&
    f.stuck === 0 &&
    f.batchDoneOnce === f.batchTasks &&
    f.asksAnswered === f.asks &&
    f.problems.length === 0
  );
}

/** The table `npm run chaos` prints. */
export function formatReport(report: ChaosReport): string {
  const { faults, model, findings: f, seconds } = report;
  const rows: [string, string][] = [
    ['workers SIGKILLed', String(faults.kills)],
    ['workers that exited on their own', String(report.workerCrashes)],
    [
      'Temporal restarts',
      `${faults.temporalRestarts}${faults.temporalRestarts ? ` (down ${(faults.temporalDownMs / 1000).toFixed(1)} s)` : faults.temporalSkipped ? ' (skipped: a named server)' : ''}`,
    ],
    [
      'PostgreSQL restarts',
      `${faults.postgresRestarts}${faults.postgresRestarts ? ` (down ${(faults.postgresDownMs / 1000).toFixed(1)} s)` : ''}`,
    ],
    ['model requests / 500s / hung / cut', `${model.requests} / ${model.errors500} / ${model.hangs} / ${model.drops}`],
    ['sessions checked', String(f.sessions)],
    ['parts checked', String(f.parts)],
    ['lost', String(f.lost)],
    ['duplicated', String(f.duplicated)],
    ['tool calls (interrupted, reported)', `${f.toolCalls} (${f.toolErrors})`],
    ['side effects expected / ran', `${f.sideEffectsExpected} / ${f.sideEffectsRan}`],
    ['side effects duplicated', String(f.sideEffectsDuplicated)],
    ['batch tasks done exactly once', `${f.batchDoneOnce} / ${f.batchTasks}`],
    ['asks answered after the faults', `${f.asksAnswered} / ${f.asks}`],
    ['stuck runs', String(f.stuck)],
    [
      'time: setup / faults / settle / checks',
      `${seconds.setup} / ${seconds.faults} / ${seconds.settle} / ${seconds.checks} s`,
    ],
    ['time: total', `${seconds.total} s`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`);
  const verdict = report.ok
    ? 'PASS: nothing lost, nothing duplicated, nothing stuck'
    : `FAIL: ${f.problems.length} problem(s)`;
  const crashed =
    report.workerCrashes && report.ok
      ? [
          `WARNING: ${report.workerCrashes} worker(s) exited on their own ${report.kept ? ` (logs under ${report.kept}/logs)` : ''}`,
        ]
      : [];
  const kept = report.kept ? [`The run's folder is kept: ${report.kept}`] : [];
  return ['Loom chaos run', ...lines, verdict, ...crashed, ...f.problems.map((p) => `  - ${p}`), ...kept].join('\n');
}
