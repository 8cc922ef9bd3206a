import { parseModelId } from '../models/model-id.js';

/**
 * What a session's tree may spend: tokens (input, output, cache reads and writes, as `loom tree`
 * counts them) and dollars. Either may be absent; an empty budget limits nothing.
 */
export interface Budget {
  tokens?: number;
  cost?: number;
}

/** The budget the `limits` key of loom.json or of an agent gives each new session it applies to. */
export function budgetOfLimits(limits: { max_tokens?: number; max_cost?: number } | undefined): Budget | undefined {
  if (!limits || (limits.max_tokens === undefined && limits.max_cost === undefined)) return undefined;
  return {
    ...(limits.max_tokens !== undefined ? { tokens: limits.max_tokens } : {}),
    ...(limits.max_cost !== undefined ? { cost: limits.max_cost } : {}),
  };
}

/** Why a cost budget cannot cover a model: its prices are unknown, and where to give them. */
export function unpricedModelMessage(model: string, owner: string): string {
  const { providerID, modelID } = parseModelId(model);
  return (
    `Model ${model} cannot be priced, so the cost budget of ${owner} cannot count what it spends: ` +
    `add its prices to loom.json (provider.${providerID}.models.${modelID}.cost: {"input": …, "output": …}, dollars per million tokens), ` +
    `or give a token budget (--max-tokens) instead.`
  );
}

/** What one budget covers and what has been spent under it so far. */
export interface BudgetLine {
  /** The session whose tree it covers, or the batch (`bat_…`) whose tasks it covers. */
  owner: string;
  kind: 'tree' | 'batch';
  budget: Budget;
  spent: { tokens: number; cost: number };
}

/** Every budget over a session (its own tree's, its ancestors', its batch's) and the first one spent, if any. */
export interface BudgetStanding {
  lines: BudgetLine[];
  exceeded?: { line: BudgetLine; limit: 'tokens' | 'cost' };
}

/** The first limit of these lines that is reached: nothing more may start under it. */
export function firstExceeded(lines: BudgetLine[]): BudgetStanding['exceeded'] {
  for (const line of lines) {
    if (line.budget.tokens !== undefined && line.spent.tokens >= line.budget.tokens) return { line, limit: 'tokens' };
    if (line.budget.cost !== undefined && line.spent.cost >= line.budget.cost) return { line, limit: 'cost' };
  }
  return undefined;
}

/** `45,210 / 60,000 tokens · $0.12 / $1.00`: spend against each limit of a budget. */
export function spendAgainstBudget(line: Pick<BudgetLine, 'budget' | 'spent'>): string {
  const parts: string[] = [];
  if (line.budget.tokens !== undefined)
    parts.push(`${groupDigits(line.spent.tokens)} / ${groupDigits(line.budget.tokens)} tokens`);
  if (line.budget.cost !== undefined) parts.push(`${dollars(line.spent.cost)} / ${dollars(line.budget.cost)}`);
  return parts.join(' · ');
}

/** Why a run stopped: which budget, what it spent, and how to go on. */
export function budgetExceededMessage({ line, limit }: NonNullable<BudgetStanding['exceeded']>): string {
  const spent =
    limit === 'tokens'
      ? `${groupDigits(line.spent.tokens)} tokens spent of ${groupDigits(line.budget.tokens!)}`
      : `${dollars(line.spent.cost)} spent of ${dollars(line.budget.cost!)}`;
  const flag = limit === 'tokens' ? '--max-tokens' : '--max-cost';
  const more =
    limit === 'tokens'
      ? String(Math.max(line.budget.tokens! * 2, Math.ceil(line.spent.tokens * 1.5)))
      : Math.max(line.budget.cost! * 2, line.spent.cost * 1.5).toFixed(2);
  if (line.kind === 'batch')
    return `The ${limit === 'tokens' ? 'token' : 'cost'} budget of batch ${line.owner} is reached (${spent}): no new model call starts in its tasks.`;
  return (
    `The ${limit === 'tokens' ? 'token' : 'cost'} budget of session ${line.owner} and its subagents is reached (${spent}): ` +
    `no new model call starts in its tree. Continue with a larger budget: loom resume ${line.owner} ${flag} ${more} "…"`
  );
}

function groupDigits(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function dollars(n: number): string {
  return `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;
}
