import { SkillHostError } from './errors.js'

/**
 * Deepest nesting of objects and arrays a tool's arguments may have. Real
 * arguments nest a handful of levels; validators, `structuredClone` and
 * JSON encoders recurse, so a model-supplied value nested 200,000 levels
 * would overflow the host's stack inside them.
 */
export const MAX_ARGUMENT_DEPTH = 64

/**
 * Refuses `value` with `E_TOOL_INVALID_ARGS` when objects or arrays nest
 * deeper than `MAX_ARGUMENT_DEPTH`. Iterative (no recursion to overflow) and
 * visits each object once, so shared or cyclic references cannot make it loop.
 * Every validator calls it before it recurses into the value.
 */
export function assertArgumentDepth(toolName: string, value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  const seen = new Set<object>()
  const stack: [object, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [object, number]
    if (depth > MAX_ARGUMENT_DEPTH) {
      throw new SkillHostError(
        'E_TOOL_INVALID_ARGS',
        `Invalid arguments for '${toolName}': they nest deeper than ${MAX_ARGUMENT_DEPTH} levels.`,
      )
    }
    if (seen.has(node)) continue
    seen.add(node)
    const children = Array.isArray(node) ? node : Object.values(node)
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
}
