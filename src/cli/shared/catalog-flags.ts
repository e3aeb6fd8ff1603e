import { type CatalogBudget, catalogBudgetProblem } from '../../index.js'
import { UsageError } from './parse-args.js'

/** The flag names a command gives the three budget fields. */
export interface CatalogBudgetFlagNames {
  readonly window: string
  readonly share: string
  readonly maxTokens?: string
}

const WHOLE = /^\d+$/
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/

function number(value: string | undefined, flag: string, pattern: RegExp, need: string) {
  if (value === undefined) return undefined
  if (!pattern.test(value)) throw new UsageError(`--${flag} must be ${need}`)
  return Number(value)
}

/**
 * A catalog budget from a command's flags (`prompt`: `--window`, `--share`,
 * `--max-tokens`; `serve`: `--catalog-window`, `--catalog-share`), checked
 * by the library's one rule (`catalogBudgetProblem`) and refused as a
 * `UsageError` that names the flag.
 */
export function parseCatalogBudgetFlags(
  strings: Readonly<Record<string, string>>,
  names: CatalogBudgetFlagNames,
): CatalogBudget {
  const whole = 'a positive whole number of tokens'
  const window = number(strings[names.window], names.window, WHOLE, whole)
  const share = number(
    strings[names.share],
    names.share,
    DECIMAL,
    'a number greater than 0 and at most 1',
  )
  const maxTokens =
    names.maxTokens === undefined
      ? undefined
      : number(strings[names.maxTokens], names.maxTokens, WHOLE, whole)
  const budget: CatalogBudget = {
    ...(window !== undefined && { window }),
    ...(share !== undefined && { share }),
    ...(maxTokens !== undefined && { maxTokens }),
  }
  const problem = catalogBudgetProblem(budget)
  if (problem !== undefined) {
    const flag =
      problem.field === 'maxTokens' ? names.maxTokens : names[problem.field as 'window' | 'share']
    throw new UsageError(
      problem.field === 'share' && window === undefined
        ? `--${flag} needs --${names.window} (the share is of the model's window)`
        : `--${flag} must be ${problem.need}`,
    )
  }
  return budget
}
