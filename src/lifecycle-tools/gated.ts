import { enforceToolGate, type ToolGate } from '../common/gate.js'
import { type SkillhostSpanName, type TracedSpan, traced } from '../common/tracing.js'
import type { TurnContext } from '../common/turn-context.js'

/** The JSON text of a tool result: two-space indented, as every lifecycle tool answers. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2)

/**
 * A lifecycle tool's own work. `span` is the call's span: a tool that learns
 * which skill it acted on (load, unload) notes the catalog's id and version
 * there, never the text the model sent.
 */
export type LifecycleRun<A, R> = (args: A, ctx: TurnContext, span: TracedSpan) => Promise<R>

/** Wraps a lifecycle tool's handlers so each passes `gate` (tier `lifecycle`) before it runs. */
export interface LifecycleGate {
  /** A handler whose result is already its text. */
  readonly gatedText: <A>(
    name: string,
    run: LifecycleRun<A, string>,
  ) => (args: A, ctx: TurnContext) => Promise<string>
  /** A handler whose result is rendered with `json`. */
  readonly gated: <A>(
    name: string,
    run: LifecycleRun<A, unknown>,
  ) => (args: A, ctx: TurnContext) => Promise<string>
}

/**
 * The gate wrappers for `gate`: the gate is enforced before the handler does
 * anything, and the whole call (gate included) is one span
 * `skillhost.<tool>` (docs/observability.md).
 */
export function lifecycleGate(gate: ToolGate): LifecycleGate {
  const gatedText =
    <A>(name: string, run: LifecycleRun<A, string>) =>
    (args: A, ctx: TurnContext): Promise<string> =>
      traced(
        `skillhost.${name}` as SkillhostSpanName,
        { tool: name, tier: 'lifecycle' },
        async (span) => {
          await enforceToolGate(gate, ctx, { tool: name, args, tier: 'lifecycle' })
          return run(args, ctx, span)
        },
      )
  const gated = <A>(name: string, run: LifecycleRun<A, unknown>) =>
    gatedText<A>(name, async (args, ctx, span) => json(await run(args, ctx, span)))
  return { gatedText, gated }
}
