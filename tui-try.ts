import { startScriptedModel } from './testkit/model/scripted-model.js';
const model = await startScriptedModel([
  { when: { lastUser: /list/, lastRole: 'user' }, reply: { toolCalls: [{ name: 'bash', args: { command: 'ls -la', description: 'List files' } }] } },
  { when: { lastRole: 'tool' }, reply: { text: 'Here are the **files**:\n\n```ts\nconst x: number = 1;\n```\n\nDone.', chunkDelayMs: 30, chunkSize: 5 } },
  { reply: { text: '# Hello\n\nThis is a *streamed* answer with a list:\n\n- one\n- two\n\n```js\nfunction f() { return 42; }\n```\n', chunkDelayMs: 40, chunkSize: 4 } },
]);
console.log(JSON.stringify({ provider: { scripted: { options: { baseURL: model.url, apiKey: 'x' } } }, model: 'scripted/demo' }));
setInterval(() => {}, 1 << 30);
