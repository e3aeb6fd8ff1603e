/** The longest value one argv element may carry, in UTF-16 units. */
export const MAX_ARG_VALUE_LENGTH = 32 * 1024

/**
 * Why `value` is unsafe as one argv element, or undefined when it is safe:
 * a leading `-` (it would be read as an option), a NUL (it would cut the
 * argument), or more than `MAX_ARG_VALUE_LENGTH` characters. The one rule for
 * model arguments at call time and for declared enum values at load time.
 */
export function unsafeArgValueReason(value: string): string | undefined {
  if (value.startsWith('-')) return `value must not start with '-' (it would be read as an option).`
  return literalArgProblem(value)
}

/** Most literal argv elements one undeclared-script call may pass. */
export const MAX_LITERAL_ARGS = 256

/**
 * Why `value` cannot be one literal argv element, or undefined: a NUL (it
 * would cut the argument) or more than `MAX_ARG_VALUE_LENGTH` characters. A
 * leading `-` is fine here: the element follows the script path, so it is
 * the script's option, never the interpreter's. No shell ever sees it.
 */
export function literalArgProblem(value: string): string | undefined {
  if (value.includes('\0')) return 'value must not contain a NUL character.'
  if (value.length > MAX_ARG_VALUE_LENGTH)
    return `value must be at most ${MAX_ARG_VALUE_LENGTH} characters.`
  return undefined
}
