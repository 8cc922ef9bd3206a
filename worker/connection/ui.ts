import { isLoopback } from '../../core/text/loopback.js';
import type { TemporalTarget } from './target.js';

/**
 * Temporal Cloud's frontends: `<namespace>.<account>.tmprl.cloud`
 * (mTLS) and `<region>.<cloud>.api.temporal.io` (API keys).
 */
const CLOUD_HOST = /(\.tmprl\.cloud|\.api\.temporal\.io)$/;

/**
 * Where a person sees the target's runs: `LOOM_TEMPORAL_UI_URL`; Temporal Cloud's UI for a Cloud
 * address; the dev server's UI for the embedded server or one on this machine. Undefined when
 * Loom cannot know (a self-hosted cluster without `LOOM_TEMPORAL_UI_URL`): no link beats a wrong one.
 */
export function temporalUiUrl(
  target: Pick<TemporalTarget, 'address' | 'embedded'>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const configured = env.LOOM_TEMPORAL_UI_URL?.trim();
  if (configured) return configured.replace(/\/+$/, '');
  const host = target.address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (CLOUD_HOST.test(host)) return 'https://cloud.temporal.io';
  if (target.embedded || isLoopback(host)) return `http://localhost:${env.LOOM_TEMPORAL_UI_PORT || 8233}`;
  return undefined;
}
