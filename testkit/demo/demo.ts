import { spawn } from 'node:child_process';
import pc from 'picocolors';
import type { MessageWithParts } from '../../core/records/message.js';
import { demoAnswerProblems } from './demo-checks.js';
import { demoScript } from './demo-script.js';
import { startScriptedModel } from '../model/scripted-model.js';
import { LOOM_BIN } from '../loom/worker-process.js';
import { PROJECT_ROOT } from '../../worker/bundle.js';

/**
 * `npm run demo`: Loom end to end with no API key. The model is the scripted OpenAI-compatible
 * server from the tests; everything else (Temporal, the worker, the tools, the store) is real.
 * It ends by checking its answers against this checkout, and fails if they are wrong.
 */
const model = await startScriptedModel(demoScript);
const env = {
  ...process.env,
  LOOM_TASK_QUEUE: process.env.LOOM_TASK_QUEUE ?? 'loom-demo',
  LOOM_CONFIG_CONTENT: JSON.stringify({ provider: { scripted: { options: { baseURL: model.url, apiKey: 'demo' } } } }),
};
// Async, not spawnSync: the scripted model answers from this very process.
const loom = (args: string[], capture = false) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [LOOM_BIN, ...args], {
      env,
      cwd: PROJECT_ROOT,
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`\`loom ${args.join(' ')}\` exited with ${code}.`)),
    );
  });
// picocolors, as the CLI: no colour when stdout is not a terminal or NO_COLOR is set, colour with FORCE_COLOR.
const say = (text: string) => process.stdout.write(`\n${pc.bold(pc.cyan(text))}\n`);

try {
  say('Loom demo — the model is SCRIPTED (testkit/demo/demo-script.ts): no real LLM is called.');
  say('$ loom run -m scripted/demo "What is this project, and where are its tests?"');
  await loom(['run', '-m', 'scripted/demo', 'What is this project, and where are its tests?']);

  const [session] = JSON.parse(await loom(['ls', '--json', '-n', '1'], true)) as { id: string }[];
  say(`$ loom resume ${session.id} "Where is the session loop?"`);
  await loom(['resume', session.id, 'Where is the session loop?']);

  say(`$ loom show ${session.id}`);
  await loom(['show', session.id]);

  const { messages } = JSON.parse(await loom(['show', session.id, '--json'], true)) as {
    messages: MessageWithParts[];
  };
  const answers = messages
    .filter((message) => message.info.role === 'assistant')
    .flatMap((message) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])));
  const problems = demoAnswerProblems(answers, PROJECT_ROOT);
  if (problems.length) {
    process.stderr.write(
      `\n${pc.red(`The demo's answers are wrong; fix testkit/demo/demo-script.ts:\n${problems.join('\n')}`)}\n`,
    );
    process.exitCode = 1;
  } else {
    const ui = process.env.TEMPORAL_ADDRESS
      ? "your Temporal server's UI"
      : `http://localhost:${process.env.LOOM_TEMPORAL_UI_PORT || 8233}`;
    say(`Both runs are in the Temporal UI (${ui}). \`loom down\` stops the embedded server.`);
  }
} catch (error) {
  process.stderr.write(`\n${pc.red((error as Error).message)}\n`);
  process.exitCode = 1;
} finally {
  await model.close();
}
