import { Context } from '@temporalio/activity';
import { activityQueueServed } from './pollers.js';

/** Whether a host's workspace queue has a worker: for the run's details while its tools wait. */
export function createHostStatusActivities() {
  async function hostServed(input: { queue: string }): Promise<boolean> {
    const { client, info } = Context.current();
    return activityQueueServed(client.workflowService, info.workflowNamespace ?? info.activityNamespace, input.queue);
  }
  return { hostServed };
}
