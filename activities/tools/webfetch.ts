import { LOOM_VERSION } from '../process/package-root.js';
import type { z } from 'zod';
import {
  WEBFETCH_DEFAULT_TIMEOUT_SECONDS,
  WEBFETCH_MAX_BYTES,
  WEBFETCH_MAX_TIMEOUT_SECONDS,
  type webfetch as webfetchSpec,
} from '../../core/tools/webfetch.js';
import { localAddressOf } from '../permissions/local-network.js';
import { htmlToMarkdown, htmlToText } from './web/html-convert.js';
import { ToolError, type ToolHandler } from './running/tool-handler.js';

type Format = 'text' | 'markdown' | 'html';

const MAX_REDIRECTS = 10;

const USER_AGENT = `Loom/${LOOM_VERSION} (+webfetch)`;

const ACCEPT: Record<Format, string> = {
  markdown: 'text/markdown;q=1.0, text/plain;q=0.9, text/html;q=0.8, */*;q=0.1',
  text: 'text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1',
  html: 'text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1',
};

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Non-`text/*` types that are still text a model can read as is. */
const TEXT_TYPE = /^text\/|[/+](json|xml|javascript|ecmascript|yaml|x-yaml|toml|csv|markdown|x-sh|sql|graphql)$/;

export const webfetch: ToolHandler<z.infer<typeof webfetchSpec.parameters>> = async (input, context) => {
  const { url } = input;
  const format: Format = input.format ?? 'markdown';
  const seconds = Math.min(input.timeout ?? WEBFETCH_DEFAULT_TIMEOUT_SECONDS, WEBFETCH_MAX_TIMEOUT_SECONDS);
  const timeout = AbortSignal.timeout(seconds * 1000);
  const signal = AbortSignal.any([context.abort, timeout]);

  try {
    const response = await fetchFollowing(
      url,
      { signal, headers: { 'User-Agent': USER_AGENT, Accept: ACCEPT[format] } },
      Boolean(context.localNetworkAllowed),
    );
    if (!response.ok) {
      await response.body?.cancel();
      throw new ToolError(
        `Request failed with status ${response.status} ${response.statusText}`.trimEnd() + `: ${url}`,
      );
    }
    if (Number(response.headers.get('content-length') ?? 0) > WEBFETCH_MAX_BYTES) {
      await response.body?.cancel();
      throw tooLarge(url);
    }
    const contentType = response.headers.get('content-type') ?? '';
    const mime = contentType.split(';')[0].trim().toLowerCase();
    if (mime && !HTML_TYPES.has(mime) && !TEXT_TYPE.test(mime)) {
      await response.body?.cancel();
      throw new ToolError(`Content type ${mime} is not supported: webfetch only returns text and HTML. URL: ${url}`);
    }

    const body = await readCapped(response, url, (bytes) => context.update({ metadata: { bytes } }));
    const text = decode(body, contentType);
    // No content type and NUL bytes: a binary file served without a label.
    if (!mime && text.includes('\u0000')) throw new ToolError(`Binary content is not supported: ${url}`);

    const isHtml = HTML_TYPES.has(mime);
    const output =
      !isHtml || format === 'html' ? text : format === 'markdown' ? htmlToMarkdown(text) : htmlToText(text);
    return {
      title: `${url} (${contentType || 'unknown content type'})`,
      output,
      metadata: { status: response.status, contentType, bytes: body.byteLength },
    };
  } catch (error) {
    // Cancellation must reach the activity as itself, so Temporal records the call as cancelled.
    if (context.abort.aborted) throw error;
    if (error instanceof ToolError) throw error;
    if (timeout.aborted) throw new ToolError(`Request timed out after ${seconds} s: ${url}`);
    throw new ToolError(`Request failed: ${networkCause(error)}: ${url}`);
  }
};

/**
 * Fetches a URL, following redirects one by one: each address is checked before it is connected
 * to, so a public page cannot redirect the agent into the local network. A local address is
 * reached only when the run granted it for the URL the model asked for (and its own origin).
 */
async function fetchFollowing(url: string, init: RequestInit, localAllowed: boolean): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const local = await localAddressOf(current);
    if (local && !(localAllowed && new URL(current).origin === new URL(url).origin)) {
      throw new ToolError(
        current === url
          ? `${url} is on the local network (${local}); fetching it needs the user's permission, which this call did not get.`
          : `${url} redirects to ${current}, which is on the local network (${local}). It was not fetched; call webfetch with ${current} itself if you need it, and the user will be asked.`,
      );
    }
    const response = await fetch(current, { ...init, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return response;
    await response.body?.cancel();
    current = new URL(location, current).toString();
  }
  throw new ToolError(`Too many redirects (over ${MAX_REDIRECTS}): ${url}`);
}

/** Reads the body, stopping as soon as it passes the size cap (servers may lie or omit the length). */
async function readCapped(response: Response, url: string, progress: (bytes: number) => void): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > WEBFETCH_MAX_BYTES) {
      await reader.cancel();
      throw tooLarge(url);
    }
    chunks.push(value);
    progress(total);
  }
  return Buffer.concat(chunks);
}

function decode(body: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function tooLarge(url: string): ToolError {
  return new ToolError(`Response too large (over ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB): ${url}`);
}

/** `fetch failed` says nothing; the cause (`connect ECONNREFUSED 127.0.0.1:9`) says what went wrong. */
function networkCause(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors.length > 0) return networkCause(cause.errors[0]);
  return cause instanceof Error ? cause.message : String(cause);
}
