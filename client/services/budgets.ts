import type { BudgetRecords } from '../../activities/store/budgets.js';
import { budgetStanding, spentOf } from '../../activities/budget/standing.js';
import type { SessionRecords } from '../../activities/store/sessions.js';
import { budgetExceededMessage, unpricedModelMessage, type Budget } from '../../core/runs/budget.js';
import type { LoomConfig } from '../../core/config/config.js';
import { modelInfo } from '../../core/models/model-info.js';

/** A budget a person gave that cannot be used: the message names the flag or field and the value. */
export class BudgetInputError extends Error {
  override name = 'BudgetInputError';
}

/** What a person typed or sent for a budget, by the names they used (`--max-tokens`, or `max_tokens`). */
export interface BudgetInput {
  tokens?: { name: string; value: unknown };
  cost?: { name: string; value: unknown };
}

/** The budget asked for, checked: a whole number of tokens above zero, dollars above zero. */
export function budgetFromInput(input: BudgetInput): Budget | undefined {
  const budget: Budget = {};
  if (input.tokens && input.tokens.value !== undefined) {
    const tokens = numberOf(input.tokens.value);
    if (tokens === undefined || !Number.isInteger(tokens) || tokens <= 0)
      throw new BudgetInputError(
        `${input.tokens.name} must be a whole number of tokens above 0, not ${JSON.stringify(input.tokens.value)}.`,
      );
    budget.tokens = tokens;
  }
  if (input.cost && input.cost.value !== undefined) {
    const value = input.cost.value;
    const cost = numberOf(typeof value === 'string' ? value.replace(/^\s*\$/, '') : value);
    if (cost === undefined || cost <= 0)
      throw new BudgetInputError(
        `${input.cost.name} must be an amount of dollars above 0 (like 2.50), not ${JSON.stringify(input.cost.value)}.`,
      );
    budget.cost = cost;
  }
  return budget.tokens === undefined && budget.cost === undefined ? undefined : budget;
}

/** A cost budget needs the prices of the model the run starts with (subagents' models are checked as they start). */
export function checkBudgetPrices(budget: Budget | undefined, model: string, config: LoomConfig, owner: string): void {
  if (budget?.cost !== undefined && !modelInfo(config, model).cost)
    throw new BudgetInputError(unpricedModelMessage(model, owner));
}

/** A batch's cost budgets need the prices of every model its tasks use (a task's own, else the batch's default). */
export function checkBatchBudgetPrices(
  budgets: (Budget | undefined)[],
  taskModels: (string | undefined)[],
  defaultModel: () => string,
  config: LoomConfig,
): void {
  if (!budgets.some((budget) => budget?.cost !== undefined)) return;
  for (const model of new Set(taskModels)) checkBudgetPrices({ cost: 1 }, model ?? defaultModel(), config, 'the batch');
}

/**
 * A new budget for an existing session's tree, over what it had (a limit not given is kept), refused
 * when the tree has already spent it: the run would stop before its first step.
 */
export async function budgetForSession(
  store: Pick<BudgetRecords, 'budgetOf' | 'subtreeUsage'>,
  sessionId: string,
  asked: Budget,
  names: { tokens: string; cost: string },
): Promise<Budget> {
  const spent = spentOf(await store.subtreeUsage(sessionId));
  if (asked.tokens !== undefined && asked.tokens <= spent.tokens)
    throw new BudgetInputError(
      `Session ${sessionId} and its subagents have already used ${spent.tokens} tokens: ${names.tokens} ${asked.tokens} would stop it at once. Give more than ${spent.tokens}.`,
    );
  if (asked.cost !== undefined && asked.cost <= spent.cost)
    throw new BudgetInputError(
      `Session ${sessionId} and its subagents have already spent $${spent.cost.toFixed(4)}: ${names.cost} ${asked.cost} would stop it at once. Give more than that.`,
    );
  return { ...(await store.budgetOf(sessionId)), ...asked };
}

/**
 * Before a prompt goes to an existing session: its new budget, if one was asked for, checked and kept;
 * then why the session may not go on, if a budget over it is spent.
 */
export async function budgetBeforeResume(
  store: Pick<BudgetRecords, 'budgetOf' | 'subtreeUsage' | 'setBudget' | 'batchUsage' | 'batchBudgetsOf'> &
    Pick<SessionRecords, 'getSession'>,
  sessionId: string,
  asked: Budget | undefined,
  names: { tokens: string; cost: string },
): Promise<string | undefined> {
  if (asked) await store.setBudget(sessionId, await budgetForSession(store, sessionId, asked, names));
  const { exceeded } = await budgetStanding(store, sessionId);
  return exceeded && budgetExceededMessage(exceeded);
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}
