import { SkillHostError } from '../common/errors.js'

/** Characters per token used for estimates: a rough, tokenizer-free rule that overestimates English prose slightly. */
export const CHARS_PER_TOKEN = 4

/** The share of the model's context window the catalog may take when only `window` is given: 1 %. */
export const DEFAULT_CATALOG_SHARE = 0.01

/**
 * How much room the `<available_skills>` block may take. `window` (the
 * model's context window in tokens) with `share` (default 1 %) is the usual
 * way: `window: 200_000` allows 200,000 × 0.01 × 4 = 8,000 characters.
 * `maxTokens` is a fixed token count. Given both, the smaller allowance wins;
 * given neither, there is no limit.
 */
export interface CatalogBudget {
  /** The model's context window, in tokens (a positive whole number). */
  readonly window?: number
  /** The part of `window` the block may take, greater than 0 and at most 1. Default 0.01. Needs `window`. */
  readonly share?: number
  /** A fixed allowance, in tokens (a positive whole number). */
  readonly maxTokens?: number
}

/** What is wrong with a budget: the field and what it needs. */
export interface CatalogBudgetProblem {
  readonly field: 'window' | 'share' | 'maxTokens'
  readonly need: string
}

const wholePositive = (n: unknown): boolean =>
  typeof n === 'number' && Number.isSafeInteger(n) && n > 0

/**
 * The one check of a catalog budget, called by every entry point (the
 * renderer, the manager's configuration, the adapters, the CLI flags, which
 * phrase the problem in their own names). Undefined when the budget is sound.
 */
export function catalogBudgetProblem(budget: CatalogBudget): CatalogBudgetProblem | undefined {
  const { window, share, maxTokens } = budget
  if (window !== undefined && !wholePositive(window))
    return { field: 'window', need: 'a positive whole number of tokens' }
  if (share !== undefined) {
    if (typeof share !== 'number' || !(share > 0 && share <= 1))
      return { field: 'share', need: 'a number greater than 0 and at most 1' }
    if (window === undefined) return { field: 'share', need: 'a window to be a share of' }
  }
  if (maxTokens !== undefined && !wholePositive(maxTokens))
    return { field: 'maxTokens', need: 'a positive whole number of tokens' }
  return undefined
}

/** `E_INVALID_SKILLS_CONFIG` for a budget `catalogBudgetProblem` refuses; `where` names the option holding it. */
export function assertCatalogBudget(budget: CatalogBudget, where: string): void {
  const problem = catalogBudgetProblem(budget)
  if (problem === undefined) return
  throw new SkillHostError(
    'E_INVALID_SKILLS_CONFIG',
    `${where}.${problem.field} needs ${problem.need}.`,
    { data: { field: problem.field } },
  )
}

/**
 * The characters the block may take under `budget` (checked first), or
 * undefined for no limit: window × share × 4, maxTokens × 4, the smaller of
 * the two when both are given. Whole characters, rounded down.
 */
export function catalogBudgetChars(budget: CatalogBudget, where = 'catalog'): number | undefined {
  assertCatalogBudget(budget, where)
  const limits: number[] = []
  if (budget.window !== undefined)
    // The epsilon keeps float noise (0.29 × 100 = 28.999…) from losing a character.
    limits.push(
      Math.floor(budget.window * (budget.share ?? DEFAULT_CATALOG_SHARE) * CHARS_PER_TOKEN + 1e-6),
    )
  if (budget.maxTokens !== undefined) limits.push(budget.maxTokens * CHARS_PER_TOKEN)
  return limits.length === 0 ? undefined : Math.min(...limits)
}
