import { methods, type AgentConnection } from '@agentclientprotocol/sdk';
import { leftRunning } from '../commands/outcome.js';
import type { ClientContext } from '../context.js';
import type { TemporalAccess } from '../temporal/connect.js';
import { loomAgent } from './agent-app.js';
import type { AcpDeps } from './deps.js';
import { PermissionAsker } from './permission-asker.js';
import { protocolStdio } from './stdio.js';
import { Turns } from './turns.js';

/**
 * `loom acp`: an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, …). Its
 * sessions are Loom sessions; this process holds nothing a restart would lose. With no worker
 * polling, it runs one itself, as `loom run` does. When the editor goes (stdin closes) while a
 * turn runs on that worker, the process stays until the turn ends; Ctrl-C or SIGTERM leaves it.
 */
export async function acpCommand(context: ClientContext): Promise<number> {
  const stream = protocolStdio(context.report);
  // The handlers reach the editor through the connection, which exists once they are registered.
  const link: { connection?: AgentConnection } = {};
  const gone = () => link.connection?.signal.aborted ?? false;
  const editor = () => link.connection!.client;
  let starting: Promise<TemporalAccess> | undefined;
  const deps: AcpDeps = {
    context,
    ready: () =>
      (starting ??= (async () => {
        const access = await context.temporal();
        await context.ensureWorker();
        return access;
      })()),
    async send(sessionId, update) {
      if (gone()) return;
      await editor()
        .notify(methods.client.session.update, { sessionId, update })
        .catch(() => undefined);
    },
    asker: new PermissionAsker(
      () => context.temporal().then(({ client }) => client),
      context.store,
      editor,
      gone,
      context.report,
    ),
    turns: new Turns(),
  };
  const connection = loomAgent(deps).connect(stream);
  link.connection = connection;
  const left = leaveOnSignal();
  await Promise.race([connection.closed, left.signalled]);
  if (!left.fired) await waitForRunningTurns(context, deps.turns, left.signalled);
  if (left.fired) for (const sessionId of deps.turns.running) context.report(leftRunning(context, sessionId));
  left.dispose();
  connection.close();
  return 0;
}

/** The editor has gone: turns this process's worker runs are finished before it exits. */
async function waitForRunningTurns(context: ClientContext, turns: Turns, signalled: Promise<void>): Promise<void> {
  const running = turns.running;
  if (!running.length) return;
  if (!context.hasInProcessWorker) {
    context.report(
      `loom acp: the editor has gone; ${running.join(', ')} go on in the worker serving task queue "${context.settings.taskQueue}".`,
    );
    return;
  }
  context.report(
    `loom acp: the editor has gone while ${running.join(', ')} ran; this process keeps its worker until they end ` +
      '(Ctrl-C leaves them: they go on once a worker runs, `loom worker`; `loom show <id>` shows their progress).',
  );
  await Promise.race([turns.allEnded(), signalled]);
}

/** SIGINT and SIGTERM end the command (its worker stops; what ran goes on once a worker runs). */
function leaveOnSignal() {
  let fire: () => void = () => undefined;
  const state = {
    fired: false,
    signalled: new Promise<void>((resolve) => (fire = resolve)),
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
  const onSignal = () => {
    state.fired = true;
    fire();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return state;
}
