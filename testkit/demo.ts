import { spawn } from 'node:child_process';
import { demoScript } from './demo-script.js';
import { startScriptedModel } from './scripted-model.js';
import { LOOM_BIN } from './worker-process.js';
import { PROJECT_ROOT } from '../worker/bundle.js';

/**
 * `npm run demo`: Loom end to end with no API key. The model is the scripted OpenAI-compatible
 * server from the tests; everything else (Temporal, the worker, the tools, the store) is real.
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
    child.on('close', () => resolve(stdout));
  });
const say = (text: string) => process.stderr.write(`\n\x1b[1;36m${text}\x1b[0m\n`);

say('Loom demo — the model is SCRIPTED (testkit/demo-script.ts): no real LLM is called.');
say('$ loom run -m scripted/demo "What is this project, and where are its tests?"');
await loom(['run', '-m', 'scripted/demo', 'What is this project, and where are its tests?']);

const [session] = JSON.parse(await loom(['ls', '--json', '-n', '1'], true)) as { id: string }[];
say(`$ loom resume ${session.id} "Where is the session loop?"`);
await loom(['resume', session.id, 'Where is the session loop?']);

say(`$ loom show ${session.id}`);
await loom(['show', session.id]);
const ui = process.env.TEMPORAL_ADDRESS
  ? "your Temporal server's UI"
  : `http://localhost:${process.env.LOOM_TEMPORAL_UI_PORT || 8233}`;
say(`Both runs are in the Temporal UI (${ui}). \`loom down\` stops the embedded server.`);
await model.close();
