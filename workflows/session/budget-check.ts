import { ApplicationFailure } from '@temporalio/workflow';
import type { SessionRunInput } from '../../core/runs/run.js';
import { store } from '../activity-policies.js';
import { showProgress, type RunState } from './run-state.js';

/**
 * Before each step of a run that some budget covers: what the trees and batches over it have spent
 * (summed in the store, so a worker restart neither forgets nor counts twice). A budget reached
 * ends the run here, at the step boundary, with the reason; the tree's other runs stop at theirs.
 */
export async function checkBudget(input: SessionRunInput, state: RunState): Promise<void> {
  if (!state.config?.budgeted) return;
  const check = await store.checkBudget({ sessionId: input.sessionId });
  state.budgets = check.lines;
  showProgress(state);
  if (check.exceeded) {
    // The reason goes on the session, not on the last step's answer, which finished well.
    state.assistantMessageId = undefined;
    throw ApplicationFailure.create({ type: 'BudgetExceeded', message: check.exceeded, nonRetryable: true });
  }
}
