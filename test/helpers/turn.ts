import { createTurnContext, type TurnContext } from '../../src/common/index.js'

/** A fresh turn context over a fresh memory spool. */
export function turn(): TurnContext {
  return createTurnContext()
}

/** `n` numbered lines: "line 1" … "line n", newline-terminated. */
export function numbered(n: number): string {
  return `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')}\n`
}
