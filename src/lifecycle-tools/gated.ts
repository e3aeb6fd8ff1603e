import { enforceToolGate, type ToolGate } from '../common/gate.js'
import type { TurnContext } from '../common/turn-context.js'

/** The JSON text of a tool result: two-space indented, as every lifecycle tool answers. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2)

/** Wraps a lifecycle tool's handlers so each passes `gate` (tier `lifecycle`) before it runs. */
export interface LifecycleGate {
  /** A handler whose result is already its text. */
  readonly gatedText: <A>(
    name: string,
    run: (args: A, ctx: TurnContext) => Promise<string>,
  ) => (args: A, ctx: TurnContext) => Promise<string>
  /** A handler whose result is rendered with `json`. */
  readonly gated: <A>(
    name: string,
    run: (args: A, ctx: TurnContext) => Promise<unknown>,
  ) => (args: A, ctx: TurnContext) => Promise<string>
}

/** The gate wrappers for `gate`: the gate is enforced before the handler does anything. */
export function lifecycleGate(gate: ToolGate): LifecycleGate {
  const gatedText =
    <A>(name: string, run: (args: A, ctx: TurnContext) => Promise<string>) =>
    async (args: A, ctx: TurnContext): Promise<string> => {
      await enforceToolGate(gate, ctx, { tool: name, args, tier: 'lifecycle' })
      return run(args, ctx)
    }
  const gated = <A>(name: string, run: (args: A, ctx: TurnContext) => Promise<unknown>) =>
    gatedText<A>(name, async (args, ctx) => json(await run(args, ctx)))
  return { gatedText, gated }
}
