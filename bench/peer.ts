import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';
import { OPENCODE_VERSION } from '../testkit/install/opencode.js';
import type { ScriptRule } from '../testkit/model/scripted-model-script.js';
import type { BenchEnv } from './harness.js';
import { prepareOpenCode } from './opencode-setup.js';
import { globSteps } from './per-step.js';
import { repeat, type Row } from './stats.js';

const LOOM_BIN = join(PACKAGE_ROOT, 'bin', 'loom.js');
const LONG_STEPS = 25;
const SHORT_STEPS = 5;

/** One parent that hands the work to an `explore` child, which globs once and answers. */
function delegationScript(): ScriptRule[] {
  return [
    {
      when: { lastUser: 'Find the readme through a subagent', lastRole: 'user', toolOffered: 'task' },
      reply: {
        toolCalls: [
          {
            name: 'task',
            args: { description: 'Find the readme', prompt: 'Find the readme file.', subagent_type: 'explore' },
          },
        ],
      },
    },
    {
      when: { lastUser: 'Find the readme through a subagent', lastRole: 'tool', toolOffered: 'task' },
      reply: { text: 'The explorer found README.md.' },
    },
    {
      when: { lastUser: 'Find the readme file.', lastRole: 'user' },
      reply: { toolCalls: [{ name: 'glob', args: { pattern: '*.md' } }] },
    },
    { when: { lastUser: 'Find the readme file.', lastRole: 'tool' }, reply: { text: 'README.md is at the top.' } },
    // Titles and anything else.
    { reply: { text: 'Readme' } },
  ];
}

interface Timed {
  ms: number;
  /** Peak resident memory of the process, in MiB, when `/usr/bin/time` can tell. */
  rssMiB?: number;
}

const GNU_TIME = '/usr/bin/time';

/** Runs a command to its end; throws with its output when it fails. */
function timedRun(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Timed> {
  const measureRss = existsSync(GNU_TIME);
  const [program, argv] = measureRss ? [GNU_TIME, ['-f', 'peak-rss-kb=%M', command, ...args]] : [command, args];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(program, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0)
        return reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.slice(-2000)}`));
      const rss = /peak-rss-kb=(\d+)/.exec(output)?.[1];
      resolve({ ms, ...(rss ? { rssMiB: Number(rss) / 1024 } : {}) });
    });
  });
}

/**
 * Loom beside OpenCode on the same scripted model and project: per-step time from the `steps:N`
 * scenario ((t25 − t5) / 20, so start-up cancels out), a whole 5-step run, the delegation scenario
 * (one parent, one explore child) end to end, CLI start-up (`--help`) and peak RSS. Both run as a
 * user runs them, one CLI process per session; Loom's runs go to the bench's worker, and its
 * peak-RSS row is a `loom run` with its own in-process worker, the whole of Loom in one process
 * as OpenCode is. OpenCode that cannot be installed is a note, not a failure.
 */
export async function peer(bench: BenchEnv, runs: number): Promise<Row[]> {
  const setup = await prepareOpenCode(bench);
  if ('reason' in setup) {
    console.log(`\n${setup.reason}: the OpenCode rows are skipped.`);
    return [];
  }
  const { project, env: openCodeEnv } = setup;
  const openCode = (prompt: string) =>
    timedRun(setup.binary, ['run', '-m', 'scripted/test-model', prompt], { cwd: project, env: openCodeEnv });
  const loom = (prompt: string, env: NodeJS.ProcessEnv = bench.processEnv) =>
    timedRun(process.execPath, [LOOM_BIN, 'run', '-m', 'scripted/test-model', prompt], { cwd: bench.project, env });

  const steps = async (run: (prompt: string) => Promise<Timed>) => {
    bench.model.setScript(globSteps());
    const short = await run(`Take ${SHORT_STEPS} steps.`);
    const long = await run(`Take ${LONG_STEPS} steps.`);
    return { perStep: (long.ms - short.ms) / (LONG_STEPS - SHORT_STEPS), fiveSteps: short.ms };
  };
  const delegation = async (run: (prompt: string) => Promise<Timed>, who: string) => {
    bench.model.setScript(delegationScript());
    bench.model.requests.length = 0;
    const { ms } = await run('Find the readme through a subagent.');
    // Measured only if the child really ran: its glob went out and its answer came back.
    if (
      !bench.model.requests.some(
        (request) => request.lastUser.includes('Find the readme file.') && request.lastRole === 'tool',
      )
    ) {
      throw new Error(`${who} did not run the explore subagent in the delegation scenario`);
    }
    return ms;
  };

  const samples = await repeat(runs, async () => {
    const loomSteps = await steps(loom);
    const openCodeSteps = await steps(openCode);
    const loomDelegation = await delegation(loom, 'Loom');
    const openCodeDelegation = await delegation(openCode, 'OpenCode');
    const loomHelp = await timedRun(process.execPath, [LOOM_BIN, '--help'], {
      cwd: bench.project,
      env: bench.processEnv,
    });
    const openCodeHelp = await timedRun(setup.binary, ['--help'], { cwd: project, env: openCodeEnv });
    // Its own task queue: no worker polls it, so `loom run` starts one inside itself.
    bench.model.setScript(globSteps());
    const alone = await loom(`Take ${SHORT_STEPS} steps.`, {
      ...bench.processEnv,
      LOOM_TASK_QUEUE: `peer-rss-${Date.now()}`,
    });
    const openCodeAlone = await openCode(`Take ${SHORT_STEPS} steps.`);
    return {
      loomStep: loomSteps.perStep,
      openCodeStep: openCodeSteps.perStep,
      stepRatio: loomSteps.perStep / openCodeSteps.perStep,
      loomRun: loomSteps.fiveSteps,
      openCodeRun: openCodeSteps.fiveSteps,
      runRatio: loomSteps.fiveSteps / openCodeSteps.fiveSteps,
      loomDelegation,
      openCodeDelegation,
      delegationRatio: loomDelegation / openCodeDelegation,
      helpRatio: loomHelp.ms / openCodeHelp.ms,
      openCodeHelp: openCodeHelp.ms,
      ...(alone.rssMiB && openCodeAlone.rssMiB
        ? { loomRss: alone.rssMiB, openCodeRss: openCodeAlone.rssMiB, rssRatio: alone.rssMiB / openCodeAlone.rssMiB }
        : {}),
    };
  });
  const note = `OpenCode ${OPENCODE_VERSION}, same scripted model; one CLI process per session`;
  return [
    {
      name: `peer: one agent step, Loom (t${LONG_STEPS} − t${SHORT_STEPS}) / ${LONG_STEPS - SHORT_STEPS}`,
      unit: 'ms',
      samples: samples.loomStep,
      note,
    },
    { name: 'peer: one agent step, OpenCode', unit: 'ms', samples: samples.openCodeStep },
    { name: 'peer: one agent step, Loom ÷ OpenCode', unit: '×', samples: samples.stepRatio },
    {
      name: `peer: ${SHORT_STEPS}-step session, Loom, whole run`,
      unit: 'ms',
      samples: samples.loomRun,
      note: '`loom run` to exit; the bench worker runs it',
    },
    {
      name: `peer: ${SHORT_STEPS}-step session, OpenCode, whole run`,
      unit: 'ms',
      samples: samples.openCodeRun,
      note: '`opencode run` to exit',
    },
    { name: `peer: ${SHORT_STEPS}-step session, Loom ÷ OpenCode`, unit: '×', samples: samples.runRatio },
    { name: 'peer: delegation to explore, Loom', unit: 'ms', samples: samples.loomDelegation },
    { name: 'peer: delegation to explore, OpenCode', unit: 'ms', samples: samples.openCodeDelegation },
    { name: 'peer: delegation, Loom ÷ OpenCode', unit: '×', samples: samples.delegationRatio },
    { name: 'peer: `opencode --help`', unit: 'ms', samples: samples.openCodeHelp },
    { name: 'peer: `--help`, Loom ÷ OpenCode', unit: '×', samples: samples.helpRatio },
    ...(samples.loomRss
      ? [
          {
            name: `peer: peak RSS of a ${SHORT_STEPS}-step run, Loom with its worker in-process`,
            unit: 'MiB',
            samples: samples.loomRss,
          },
          { name: `peer: peak RSS of a ${SHORT_STEPS}-step run, OpenCode`, unit: 'MiB', samples: samples.openCodeRss },
          { name: 'peer: peak RSS, Loom ÷ OpenCode', unit: '×', samples: samples.rssRatio },
        ]
      : []),
  ];
}
