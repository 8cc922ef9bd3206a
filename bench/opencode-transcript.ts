/**
 * OpenCode's export of a session (`opencode export`, what `opencode import` takes back), as much
 * of it as the bench rewrites; the rest of each record is carried over from a real export as is.
 */
export interface OpenCodeExport {
  info: { id: string; title: string; time: { created: number; updated: number } } & Record<string, unknown>;
  messages: OpenCodeMessage[];
}

interface OpenCodeMessage {
  info: { id: string; sessionID: string; role: string; time: Record<string, number> } & Record<string, unknown>;
  parts: ({ id: string; sessionID: string; messageID: string; type: string } & Record<string, unknown>)[];
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Ids that sort by creation, in OpenCode's shape: `<prefix>_<12 hex of ms × 4096 + n><14 base62>`. */
function openCodeId(prefix: string, at: number, sequence: number): string {
  const time = (BigInt(at) * 0x1000n + BigInt(sequence % 0x1000)).toString(16).padStart(12, '0').slice(-12);
  let random = '';
  for (let index = 0; index < 14; index++) random += BASE62[Math.floor(Math.random() * 62)];
  return `${prefix}_${time}${random}`;
}

/**
 * The session `seedTranscript` writes for Loom, in OpenCode's records: `count` messages of
 * prompts and answers in turn (the `index`-th saying `text(index)`), every fifth answer after a
 * `read` call that returned `readOutput`. Built from `template`, a real export of a session whose run read a
 * file and then answered (a prompt, an assistant message with the `read` call, one with the text),
 * so that every field OpenCode expects is there.
 */
export function openCodeTranscript(
  template: OpenCodeExport,
  count: number,
  texts: { text: (index: number) => string; readOutput: string },
): OpenCodeExport {
  const [prompt, toolStep, textStep] = template.messages;
  const readCall = toolStep.parts.find((part) => part.type === 'tool');
  if (!prompt || !toolStep || !textStep || !readCall)
    throw new Error('The OpenCode template has no prompt, `read` step and answer to copy');
  const started = Date.now() - count * 1000;
  let sequence = 0;
  const sessionID = openCodeId('ses', started, sequence++);
  const messages: OpenCodeMessage[] = [];
  let promptId = '';
  for (let index = 0; index < count; index++) {
    const at = started + index * 1000;
    const id = openCodeId('msg', at, sequence++);
    const part = (source: OpenCodeMessage['parts'][number], changes: Record<string, unknown> = {}) => ({
      ...source,
      ...changes,
      id: openCodeId('prt', at, sequence++),
      sessionID,
      messageID: id,
    });
    if (index % 2 === 0) {
      promptId = id;
      const text = prompt.parts.find((candidate) => candidate.type === 'text')!;
      messages.push({
        info: { ...prompt.info, id, sessionID, time: { created: at } },
        parts: [part(text, { text: texts.text(index) })],
      });
      continue;
    }
    const parts = textStep.parts.map((source) =>
      source.type === 'text'
        ? part(source, { text: texts.text(index), time: { start: at, end: at + 10 } })
        : part(source),
    );
    if (index % 10 === 1) {
      const state = readCall.state as Record<string, unknown>;
      parts.splice(1, 0, part(readCall, { callID: `call_${index}`, state: { ...state, output: texts.readOutput } }));
    }
    messages.push({
      info: { ...textStep.info, id, sessionID, parentID: promptId, time: { created: at, completed: at + 500 } },
      parts,
    });
  }
  return {
    ...template,
    info: {
      ...template.info,
      id: sessionID,
      title: `A ${count}-message session`,
      time: { created: started, updated: started + count * 1000 },
    },
    messages,
  };
}
