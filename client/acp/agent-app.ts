import { agent, methods, PROTOCOL_VERSION, type AgentApp } from '@agentclientprotocol/sdk';
import { LOOM_VERSION } from '../../activities/process/package-root.js';
import type { AcpDeps } from './deps.js';
import { withLoomErrors } from './errors.js';
import { loadSession, newSession } from './session-open.js';
import { cancel, prompt } from './session-prompt.js';
import { setMode } from './session-mode.js';

/**
 * Loom as an ACP agent: what it says it can do, and the session methods. Methods it does not
 * handle (`session/list`, `authenticate`, extensions) get the SDK's "method not found".
 */
export function loomAgent(deps: AcpDeps): AgentApp {
  return agent({ name: 'loom' })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        // A prompt is text: an embedded resource's text goes into it, a resource link becomes an `@file` reference.
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        mcpCapabilities: { http: false, sse: false },
      },
      authMethods: [],
      agentInfo: { name: 'loom', title: 'Loom', version: LOOM_VERSION },
    }))
    .onRequest(methods.agent.session.new, ({ params }) => withLoomErrors(() => newSession(deps, params)))
    .onRequest(methods.agent.session.load, ({ params }) => withLoomErrors(() => loadSession(deps, params)))
    .onRequest(methods.agent.session.prompt, ({ params }) => withLoomErrors(() => prompt(deps, params)))
    .onRequest(methods.agent.session.setMode, ({ params }) => withLoomErrors(() => setMode(deps, params)))
    .onNotification(methods.agent.session.cancel, ({ params }) =>
      cancel(deps, params).catch((error: Error) =>
        deps.context.report(`loom acp: could not cancel ${params.sessionId}: ${error.message}`),
      ),
    );
}
