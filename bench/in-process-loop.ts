import { MockActivityEnvironment } from '@temporalio/testing';
import { isNotThisHost } from '../core/runs/workspace.js';
import type { LoomActivities } from '../activities/index.js';
import { newId } from '../core/records/ids.js';
import { localHostId } from '../activities/hosts/host-id.js';

/**
 * Loom's loop without Temporal: the same activity code (model call, tools, store writes) called
 * one after another in this process. What a step costs when nothing is durable.
 */
export async function runInProcess(
  activities: LoomActivities,
  input: { sessionId: string; directory: string; agent: string; model: string; prompt: string },
): Promise<number> {
  // An environment per call, as each activity has its own context (and cancellation signal).
  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
    new MockActivityEnvironment().run(fn, ...args) as Promise<R>;
  const config = await run(activities.prepareRun, {
    sessionId: input.sessionId,
    directory: input.directory,
    agent: input.agent,
    model: input.model,
  });
  if (isNotThisHost(config)) throw new Error('In-process loop: prepareRun declined to run here');
  await run(activities.openSession, {
    sessionId: input.sessionId,
    agent: config.agent.name,
    model: config.model,
    directory: input.directory,
    host: localHostId(),
  });
  const userMessageId = newId('msg', Date.now(), Math.random);
  await run(activities.saveUserMessage, {
    sessionId: input.sessionId,
    messageId: userMessageId,
    agent: config.agent.name,
    model: config.model,
    text: input.prompt,
    directory: input.directory,
  });
  let step = 0;
  for (;;) {
    step++;
    const messageId = newId('msg', Date.now(), Math.random);
    const answer = await run(activities.callModel, {
      sessionId: input.sessionId,
      messageId,
      parentMessageId: userMessageId,
      agent: config.agent.name,
      model: config.model,
      step,
      directory: input.directory,
      tools: config.tools,
      workspaceConfigId: config.workspaceConfigId,
    });
    const { calls } = answer;
    if (calls.length === 0) break;
    await Promise.all(
      calls.map((call) => {
        if (call.rejected) throw new Error(`In-process loop: the model's call of ${call.tool} was rejected`);
        return run(activities.runTool, {
          sessionId: input.sessionId,
          messageId,
          partId: call.partId,
          callId: call.callId,
          tool: call.tool,
          directory: input.directory,
          model: config.model,
          canDelegate: false,
        });
      }),
    );
  }
  await run(activities.pruneSession, { sessionId: input.sessionId });
  await run(activities.finishRun, { sessionId: input.sessionId, status: 'idle' });
  return step;
}
