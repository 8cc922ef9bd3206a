// A real HTTP server that speaks three model APIs and answers from a script of rules matched
// against the request's content: OpenAI's `POST /v1/chat/completions`, Anthropic's
// `POST /v1/messages` and Gemini's `POST /v1beta/models/{model}:(stream)generateContent`, each as
// JSON or SSE. Every request is recorded, normalized so rules mean the same in each protocol, so
// tests can assert what the model was shown. Node built-ins only. The wire formats live in
// scripted-model-protocol.ts (shared parts and OpenAI), -anthropic.ts and -gemini.ts.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicProtocol } from './scripted-model-anthropic.js';
import { geminiProtocol, geminiRoute } from './scripted-model-gemini.js';
import {
  describeNoMatch,
  matches,
  openAIProtocol,
  type Answer,
  type RouteInfo,
  type WireProtocol,
  type WireToolCall,
} from './scripted-model-protocol.js';
import type { RecordedRequest, ScriptRule } from './scripted-model-script.js';
import { errorMessage } from '../../core/text/error-message.js';

export interface ScriptedModel {
  url: string;
  requests: RecordedRequest[];
  setScript(rules: ScriptRule[]): void;
  addRules(...rules: ScriptRule[]): void;
  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

interface Waiter {
  pred: (r: RecordedRequest) => boolean;
  resolve: (r: RecordedRequest) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export async function startScriptedModel(
  rules: ScriptRule[] = [],
  options: { apiKey?: string; port?: number } = {},
): Promise<ScriptedModel> {
  let script: { rule: ScriptRule; used: number; name: string }[] = [];
  const requests: RecordedRequest[] = [];
  const waiters = new Set<Waiter>();
  const sockets = new Set<Socket>();
  const sleepers = new Set<() => void>();
  const modelsSeen = new Set<string>(['scripted']);
  let closing = false;
  let responses = 0;
  let toolCallIds = 0;

  const addRules = (...more: ScriptRule[]) => {
    for (const rule of more) script.push({ rule, used: 0, name: rule.name ?? `rule ${script.length}` });
  };
  addRules(...rules);

  /** Sleep that `close()` cuts short; resolves to false when the server is closing. */
  const sleep = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (closing) return resolve(false);
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve(!closing);
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  /** Silence for `ms`, or until the client hangs up; resolves to false if the answer cannot go on. */
  const stall = (res: http.ServerResponse, ms: number | undefined) =>
    ms !== undefined
      ? sleep(ms)
      : new Promise<boolean>((resolve) => {
          const wake = () => {
            sleepers.delete(wake);
            resolve(false);
          };
          sleepers.add(wake);
          res.once('close', wake);
        });

  const record = (r: RecordedRequest) => {
    requests.push(r);
    for (const w of waiters) {
      if (w.pred(r)) {
        waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(r);
      }
    }
  };

  const sendJson = (res: http.ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const answer = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    r: RecordedRequest,
    protocol: WireProtocol,
  ) => {
    const usable = (e: (typeof script)[number]) => e.rule.times === undefined || e.used < e.rule.times;
    const entry = script.find((e) => usable(e) && matches(e.rule.when, r, protocol.messageText));
    if (!entry) {
      record(r);
      const message = describeNoMatch(
        r,
        script.filter(usable).map((e) => e.name),
        protocol.messageText,
      );
      return sendJson(res, 400, protocol.errorBody(400, message));
    }
    entry.used++;
    r.rule = entry.name;
    record(r);
    const reply = typeof entry.rule.reply === 'function' ? await entry.rule.reply(r) : entry.rule.reply;
    const alive = () => !closing && !res.destroyed && !req.socket.destroyed;
    /** Send `data`, let it reach the client, then drop the connection (a network error mid-answer). */
    const hangUp = async (data: string) => {
      await new Promise((resolve) => res.write(data, resolve));
      await sleep(20);
      req.socket.destroy();
    };
    if (reply.delayMs && !(await sleep(reply.delayMs))) return;
    if (!alive()) return;
    if (reply.status !== undefined && reply.status >= 400) {
      return sendJson(res, reply.status, protocol.errorBody(reply.status, reply.errorMessage), reply.headers);
    }
    const calls: WireToolCall[] = (reply.toolCalls ?? []).map((c) => ({
      id: c.id ?? (protocol.toolCallIdPrefix === null ? undefined : `${protocol.toolCallIdPrefix}${++toolCallIds}`),
      name: c.name,
      arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}),
    }));
    const scripted: Answer = { n: ++responses, model: r.model || 'scripted', reply, request: r, calls };
    if (!r.stream) {
      const body = JSON.stringify(protocol.jsonBody(scripted));
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      if (reply.hangUp) return hangUp(body.slice(0, Math.floor(body.length / 2)));
      return void res.end(body);
    }
    res.writeHead(reply.status ?? 200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...reply.headers,
    });
    res.flushHeaders();
    if (reply.emptyStream) return void res.end(protocol.sseEnd);
    const frames = protocol.sseFrames(scripted);
    const hangUpAfter = reply.hangUp ? Math.max(1, Math.min(3, frames.length - 1)) : Infinity;
    for (let i = 0; i < frames.length; i++) {
      if (i === reply.stallAfterChunks && !(await stall(res, reply.stallMs))) return;
      if (i > 0 && reply.chunkDelayMs && !(await sleep(reply.chunkDelayMs))) return;
      if (!alive()) return;
      if (i + 1 >= hangUpAfter) return hangUp(frames[i]);
      res.write(frames[i]);
    }
    if (reply.stallAfterChunks === frames.length && !(await stall(res, reply.stallMs))) return;
    if (alive()) res.end(protocol.sseEnd);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('error', () => {}); // the client may vanish mid-answer; that is not our failure
    const url = new URL(req.url ?? '/', 'http://scripted');
    const path = url.pathname;
    let raw = '';
    for await (const part of req) raw += part;
    const route = req.method === 'POST' ? routeOf(path) : undefined;
    const protocol = route?.protocol ?? nearestProtocol(path);
    const recorded = (known: Route) => toRecordedRequest(known, requests.length, path, req.headers, raw);
    if (options.apiKey !== undefined && !protocol.hasApiKey(req.headers, url.searchParams, options.apiKey)) {
      if (route) record(recorded(route));
      return sendJson(res, 401, protocol.errorBody(401, 'Incorrect API key provided.'));
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const data = [...modelsSeen].map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (!route) return sendJson(res, 404, protocol.errorBody(404, `Unknown route ${req.method} ${path}`));
    const r = recorded(route);
    if (r.model) modelsSeen.add(r.model);
    if (r.body === undefined) {
      record(r);
      return sendJson(res, 400, protocol.errorBody(400, 'Request body is not valid JSON.'));
    }
    await answer(req, res, r, protocol);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const message = `Scripted model failed: ${errorMessage(err)}`;
      const protocol = nearestProtocol(new URL(req.url ?? '/', 'http://scripted').pathname);
      if (res.headersSent) req.socket.destroy();
      else sendJson(res, 500, protocol.errorBody(500, message));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript(newRules) {
      script = [];
      addRules(...newRules);
    },
    addRules,
    waitForRequest(pred, timeoutMs = 10_000) {
      const seen = requests.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const summary = requests.map((r) => `#${r.index} ${r.lastRole}: ${JSON.stringify(r.lastUser.slice(0, 60))}`);
          reject(
            new Error(
              `waitForRequest: no matching request within ${timeoutMs} ms; ` +
                `${requests.length} recorded${summary.length ? ` (${summary.join('; ')})` : ''}`,
            ),
          );
        }, timeoutMs);
        const waiter: Waiter = { pred, resolve, reject, timer };
        waiters.add(waiter);
      });
    },
    async close() {
      if (closing) return;
      closing = true;
      for (const wake of [...sleepers]) wake();
      for (const w of waiters) {
        clearTimeout(w.timer);
        w.reject(new Error('waitForRequest: scripted model closed'));
      }
      waiters.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

function safeJson(raw: string): any {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

type Route = RouteInfo & { protocol: WireProtocol };

function routeOf(path: string): Route | undefined {
  if (path === '/v1/chat/completions') return { protocol: openAIProtocol };
  if (path === '/v1/messages') return { protocol: anthropicProtocol };
  const gemini = geminiRoute(path);
  return gemini && { protocol: geminiProtocol, ...gemini };
}

/** Whose error shape (and API key header) an unknown route gets. */
function nearestProtocol(path: string): WireProtocol {
  if (path.startsWith('/v1beta/')) return geminiProtocol;
  return path.startsWith('/v1/messages') ? anthropicProtocol : openAIProtocol;
}

function toRecordedRequest(
  route: Route,
  index: number,
  path: string,
  headers: RecordedRequest['headers'],
  raw: string,
): RecordedRequest {
  const body = safeJson(raw);
  return { index, protocol: route.protocol.name, path, headers, body, raw, ...route.protocol.normalize(body, route) };
}
