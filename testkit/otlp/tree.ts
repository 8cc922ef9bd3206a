// Received spans as trees, and as indented text for assertions and failure messages.
import { OTLP_STATUS_CODE, type ReceivedSpan } from './spans.js';

export interface SpanNode extends ReceivedSpan {
  children: SpanNode[];
  /** It names a parent that was not received, so the trace is not whole. */
  orphan: boolean;
}

export type SpanFormat = (span: SpanNode) => string;

/** The span's name, and its status message when it ended in error. */
export const spanLabel: SpanFormat = (span) =>
  span.status.code === OTLP_STATUS_CODE.ERROR ? `${span.name} (error: ${span.status.message ?? ''})` : span.name;

/** Roots (true roots, then orphans), each level ordered by start time. */
export function spanTree(spans: ReceivedSpan[], traceId: string): SpanNode[] {
  const wanted = traceId.toLowerCase();
  const nodes: SpanNode[] = spans
    .filter((span) => span.traceId === wanted)
    .map((span) => ({ ...span, children: [], orphan: false }));
  const byId = new Map<string, SpanNode>();
  for (const node of nodes) if (!byId.has(node.spanId)) byId.set(node.spanId, node);
  const roots: SpanNode[] = [];
  for (const node of nodes) {
    const parent = node.parentSpanId === undefined ? undefined : byId.get(node.parentSpanId);
    if (parent && parent !== node) {
      parent.children.push(node);
    } else {
      node.orphan = node.parentSpanId !== undefined;
      roots.push(node);
    }
  }
  sortLevel(roots);
  return roots.sort((a, b) => Number(a.orphan) - Number(b.orphan));
}

/** One span a line, children indented two spaces; orphans say which parent is missing. */
export function renderSpanTree(roots: SpanNode[], format: SpanFormat = spanLabel): string {
  const lines: string[] = [];
  const walk = (node: SpanNode, depth: number) => {
    const missing = node.orphan ? ` (orphan: parent ${node.parentSpanId} not received)` : '';
    lines.push(`${'  '.repeat(depth)}${format(node)}${missing}`);
    for (const child of node.children) walk(child, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  return lines.join('\n');
}

/** Every trace received, each under a heading with its id. */
export function renderSpanTrees(spans: ReceivedSpan[], format: SpanFormat = spanLabel): string {
  const traceIds = traceIdsOf(spans);
  if (traceIds.length === 0) return '(no spans received)';
  return traceIds
    .map((traceId) => {
      const tree = renderSpanTree(spanTree(spans, traceId), format);
      return `trace ${traceId}\n${tree.replace(/^/gm, '  ')}`;
    })
    .join('\n');
}

/** Trace ids in the order their first span arrived. */
export function traceIdsOf(spans: ReceivedSpan[]): string[] {
  return [...new Set(spans.map((span) => span.traceId))];
}

function sortLevel(nodes: SpanNode[]): void {
  nodes.sort((a, b) => (a.start === b.start ? a.spanId.localeCompare(b.spanId) : a.start < b.start ? -1 : 1));
  for (const node of nodes) sortLevel(node.children);
}
