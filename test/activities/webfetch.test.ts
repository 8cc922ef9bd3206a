import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../activities/tools/running/tool-handler.js';
import { webfetch } from '../../activities/tools/webfetch.js';
import { webfetch as webfetchSpec } from '../../core/tools/webfetch.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';
import { freePort } from '../../testkit/network/free-port.js';

const MiB = 1024 * 1024;
/**
 * What the chunked endpoint would send if read to the end. Far above the cap, so a handler that
 * buffered the whole body before checking its size would be caught; loopback socket buffers can
 * hold several MiB the client never reads, so the sent count is only compared with this.
 */
const CHUNKED_TOTAL = 256 * MiB;

const PAGE = `<!doctype html>
<html>
<head>
  <title>Loom docs</title>
  <meta name="description" content="meta text that should vanish">
  <link rel="stylesheet" href="/style.css">
  <style>body { color: hotpink; }</style>
  <script>window.secretFromHead = 'head-script-contents';</script>
</head>
<body>
  <h1>Title</h1>
  <p>Loom runs <strong>durable</strong> agents. See <a href="/guide">the guide</a>.</p>
  <img src="/logo.png" alt="Loom logo">
  <ul><li>first item</li><li>second item</li></ul>
  <pre><code class="language-ts">const answer = 42;</code></pre>
  <script>console.log('body-script-contents');</script>
  <noscript>noscript-contents</noscript>
</body>
</html>`;

/** What the local server has seen, for assertions about how the handler asked. */
const seen: { path: string; headers: Record<string, string | string[] | undefined> }[] = [];
/** Bytes the chunked endpoint managed to send before the client hung up. */
let chunkedBytesSent = 0;

function route(path: string, res: ServerResponse): void {
  const send = (status: number, type: string, body: string) =>
    void res.writeHead(status, { 'content-type': type }).end(body);
  switch (path) {
    case '/page.html':
      return send(200, 'text/html; charset=utf-8', PAGE);
    case '/data.json':
      return send(200, 'application/json', '{"name":"loom","tools":["read","webfetch"]}');
    case '/notes.txt':
      return send(200, 'text/plain; charset=utf-8', 'plain <b>text</b> stays as is\n');
    case '/redirect':
      res.writeHead(302, { location: '/notes.txt' }).end();
      return;
    case '/logo.png':
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      return;
    case '/slow':
      // Headers and body never come; the client has to give up.
      return;
    case '/huge-length':
      // Claims 6 MiB, sends 1 KiB, then stalls: reading it all would hang until the timeout.
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(6 * MiB) });
      res.write('x'.repeat(1024));
      return;
    case '/huge-chunked':
      return streamChunked(res, CHUNKED_TOTAL);
    default:
      return send(404, 'text/plain', 'no such page');
  }
}

/** Sends `total` bytes without a content-length; `pipe` stops when the client goes away. */
function streamChunked(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'y');
  chunkedBytesSent = 0;
  function* chunks() {
    while (chunkedBytesSent < total) {
      chunkedBytesSent += chunk.length;
      yield chunk;
    }
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  Readable.from(chunks()).pipe(res);
}

let server: Server;
let base: string;
let project: string;
let context: ToolTestContext;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    route(req.url ?? '/', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  project = mkdtempSync(join(tmpdir(), 'loom-webfetch-'));
  // The local test server stands in for the web: fetching it is granted, as a person would.
  context = createToolContext(project, { localNetworkAllowed: true });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await context.close();
  rmSync(project, { recursive: true, force: true });
});

/** Calls the handler as the workflow would: with input validated (and defaulted) by the spec. */
function fetchPage(input: Record<string, unknown>, ctx = context) {
  return webfetch(webfetchSpec.parameters.parse(input), ctx);
}

async function toolError(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe('webfetch spec', () => {
  it('accepts http and https URLs and defaults to markdown', () => {
    expect(webfetchSpec.parameters.parse({ url: 'https://example.com/docs' })).toEqual({
      url: 'https://example.com/docs',
      format: 'markdown',
    });
    expect(
      webfetchSpec.parameters.safeParse({ url: 'http://127.0.0.1:8080/x', format: 'text', timeout: 5 }).success,
    ).toBe(true);
    expect(webfetchSpec.summarize({ url: 'https://example.com', format: 'html' })).toBe('https://example.com');
  });

  it.each(['file:///etc/passwd', 'ftp://ftp.example.com/pub/file.txt', 'javascript:alert(1)', 'example.com'])(
    'rejects %s with a clear message',
    (url) => {
      const result = webfetchSpec.parameters.safeParse({ url });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0].message).toMatch(/http:\/\/ or https:\/\//);
    },
  );

  it('rejects timeouts that are not positive or over 120 s', () => {
    expect(webfetchSpec.parameters.safeParse({ url: 'https://example.com', timeout: 0 }).success).toBe(false);
    expect(webfetchSpec.parameters.safeParse({ url: 'https://example.com', timeout: 121 }).success).toBe(false);
  });
});

describe('webfetch handler', () => {
  it('turns an HTML page into markdown without scripts, styles or metadata', async () => {
    const result = await fetchPage({ url: `${base}/page.html` });
    expect(result.output).toMatch(/^# Title$/m);
    expect(result.output).toContain('```ts\nconst answer = 42;\n```');
    expect(result.output).toMatch(/^- +first item$/m);
    expect(result.output).toMatch(/^- +second item$/m);
    expect(result.output).toContain('[the guide](/guide)');
    expect(result.output).toContain('**durable**');
    for (const noise of ['script-contents', 'hotpink', 'meta text', 'noscript-contents', '<'])
      expect(result.output).not.toContain(noise);
    expect(result.title).toBe(`${base}/page.html (text/html; charset=utf-8)`);
    expect(result.metadata).toEqual({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      bytes: Buffer.byteLength(PAGE),
    });

    const request = seen.findLast((entry) => entry.path === '/page.html')!;
    expect(request.headers['user-agent']).toMatch(/^Loom\/\d+\.\d+\.\d+ \(\+webfetch\)$/);
    expect(request.headers.accept).toMatch(/^text\/markdown;q=1\.0/);
  });

  it('turns an HTML page into plain text', async () => {
    const { output } = await fetchPage({ url: `${base}/page.html`, format: 'text' });
    for (const words of [
      'Title',
      'Loom runs durable agents. See the guide.',
      'first item',
      'second item',
      'const answer = 42;',
    ]) {
      expect(output).toContain(words);
    }
    expect(output).not.toMatch(/<[a-z/]/i);
    for (const noise of ['script-contents', 'hotpink', 'noscript-contents', 'logo', '/guide'])
      expect(output).not.toContain(noise);
    expect(seen.findLast((entry) => entry.path === '/page.html')!.headers.accept).toMatch(/^text\/plain;q=1\.0/);
  });

  it('returns the raw page for format html', async () => {
    const { output } = await fetchPage({ url: `${base}/page.html`, format: 'html' });
    expect(output).toBe(PAGE);
  });

  it.each(['markdown', 'text', 'html'])('passes JSON and plain text through unchanged (%s)', async (format) => {
    const json = await fetchPage({ url: `${base}/data.json`, format });
    expect(json.output).toBe('{"name":"loom","tools":["read","webfetch"]}');
    expect(json.metadata).toMatchObject({ status: 200, contentType: 'application/json' });
    const text = await fetchPage({ url: `${base}/notes.txt`, format });
    expect(text.output).toBe('plain <b>text</b> stays as is\n');
  });

  it('follows redirects', async () => {
    const result = await fetchPage({ url: `${base}/redirect` });
    expect(result.output).toBe('plain <b>text</b> stays as is\n');
    expect(result.metadata).toMatchObject({ status: 200 });
  });

  it('names the status and URL of a failed request', async () => {
    expect(await toolError(fetchPage({ url: `${base}/missing` }))).toBe(
      `Request failed with status 404 Not Found: ${base}/missing`,
    );
  });

  it('refuses binary content types', async () => {
    expect(await toolError(fetchPage({ url: `${base}/logo.png` }))).toMatch(
      /^Content type image\/png is not supported.*\/logo\.png$/,
    );
  });

  it('gives up on a slow server after the timeout', async () => {
    const start = Date.now();
    expect(await toolError(fetchPage({ url: `${base}/slow`, timeout: 1 }))).toBe(
      `Request timed out after 1 s: ${base}/slow`,
    );
    expect(Date.now() - start).toBeLessThan(2_000);
  });

  it('refuses a response whose content-length is over 5 MB without reading it', async () => {
    const start = Date.now();
    expect(await toolError(fetchPage({ url: `${base}/huge-length`, timeout: 10 }))).toBe(
      `Response too large (over 5 MB): ${base}/huge-length`,
    );
    // The server sent 1 KiB of the 6 MiB it promised: reading on would have waited for the timeout.
    expect(Date.now() - start).toBeLessThan(2_000);
  });

  it('stops reading a chunked body once it passes 5 MB', async () => {
    expect(await toolError(fetchPage({ url: `${base}/huge-chunked` }))).toBe(
      `Response too large (over 5 MB): ${base}/huge-chunked`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(chunkedBytesSent).toBeLessThan(CHUNKED_TOTAL / 4);
  });

  it('reports network failures with their cause', async () => {
    const port = await freePort();
    expect(await toolError(fetchPage({ url: `http://127.0.0.1:${port}/` }))).toMatch(
      /^Request failed: .*ECONNREFUSED.*: http:\/\/127\.0\.0\.1:\d+\/$/,
    );
  });

  it('rethrows cancellation instead of turning it into a ToolError', async () => {
    const controller = new AbortController();
    const cancellable = createToolContext(project, { abort: controller.signal, localNetworkAllowed: true });
    try {
      const run = fetchPage({ url: `${base}/slow` }, cancellable);
      setTimeout(() => controller.abort(), 100);
      const error = await run.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).not.toBeInstanceOf(ToolError);
      expect(error).toBe(controller.signal.reason);
      expect((error as Error).name).toBe('AbortError');
    } finally {
      await cancellable.close();
    }
  });
});
