import type { SpooledArtifact } from '../common/artifacts/index.js'
import {
  askToolGate,
  type GateCodes,
  gateFailure,
  TOOL_GATE_CODES,
  type ToolGate,
} from '../common/gate.js'
import { withResourceOwner } from '../common/leak-tracker.js'
import type { JsonSchemaObject, ToolInputSchema } from '../common/schema.js'
import { Tool, type ToolResult } from '../common/tool.js'
import { nothingToTrace, type SkillhostSpanName, traced } from '../common/tracing.js'
import type { TurnContext } from '../common/turn-context.js'
import type { SkillRef } from '../skill-model/declarations.js'
import { type ResultKeeping, resultKeeping, spoolToolResult } from './spool-result.js'

/** Counts calls in and out of a loaded skill, refusing once it is retired. */
export interface CallGuard {
  enter(toolName: string): void
  exit(): void
}

/** One skill tool, as its tier describes it to `forgeSkillTool`. */
export interface SkillToolSpec<A> {
  readonly name: string
  readonly description: string
  readonly inputSchema: ToolInputSchema<A> | JsonSchemaObject
  readonly tier: 'module' | 'isolated' | 'script'
  readonly skill: SkillRef
  /** Extra host-side metadata beside `skill`, `skillVersion` and `tier`. */
  readonly meta?: Readonly<Record<string, unknown>>
  readonly gate: ToolGate
  /** The tier's refusal and unavailable codes; default the tool codes (403 / 503). */
  readonly gateCodes?: GateCodes
  /** Counts the call in and out of its skill; absent for a tool outside the manager. */
  readonly guard?: CallGuard
  /**
   * The tier's own work, after the gate allowed the call: returns a checked
   * result, or throws a tier code. Everything around it is the envelope's.
   * Called as a plain function (no `this`).
   */
  readonly run: (args: A, ctx: TurnContext) => ToolResult | Promise<ToolResult>
  /**
   * How the result is kept: by default it is spooled (untrusted, with
   * provenance) as `artifactClass()` or a plain `SpooledArtifact`, and the
   * model sees the preview and id. `false` when `run` spools on its own:
   * a script call's output and changed files are spooled in tier 3's one
   * place (`runScriptCall`), and the tool answers with a preview naming them.
   */
  readonly spool?: false | { readonly artifactClass?: () => typeof SpooledArtifact | undefined }
}

/** The span of one call, per tier (docs/observability.md). */
const CALL_SPAN: Readonly<Record<SkillToolSpec<unknown>['tier'], SkillhostSpanName>> = {
  module: 'skillhost.module_call',
  isolated: 'skillhost.isolated_call',
  script: 'skillhost.script_call',
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  )
}

/**
 * The one tool-call envelope every tier's skill tools go through: a new
 * host-owned, always `trusted: false` `Tool` whose handler counts the call in
 * (guard), asks the host gate with the tier's codes, runs the tier, spools the
 * result with the skill's provenance, and counts the call out whatever
 * happened. The whole call is one span (`traced`: the tier's call span with
 * the tool, skill id, version, tier and outcome code). Argument validation is the `Tool`'s own, against `inputSchema`,
 * before the handler runs.
 */
export function forgeSkillTool<A>(spec: SkillToolSpec<A>): Tool<A> {
  const { name, skill, tier, gate, guard } = spec
  const codes = spec.gateCodes ?? TOOL_GATE_CODES
  const gateSkill = Object.freeze({ id: skill.id, version: skill.version })
  const provenance = Object.freeze({ skill: skill.id, skillVersion: skill.version, tool: name })
  const spooling = spec.spool
  const span = CALL_SPAN[tier]
  const facts = Object.freeze({ tool: name, skillId: skill.id, skillVersion: skill.version, tier })
  // The artifact class is resolved per call (a deployer may bind it later); its keeping is made once per class.
  let keeping: ResultKeeping | undefined
  let keepingClass: typeof SpooledArtifact | undefined
  const keepingFor = (cls: typeof SpooledArtifact | undefined): ResultKeeping => {
    if (keeping === undefined || cls !== keepingClass) {
      keeping = resultKeeping(cls, provenance)
      keepingClass = cls
    }
    return keeping
  }
  return new Tool<A>({
    name,
    description: spec.description,
    inputSchema: spec.inputSchema as ToolInputSchema<A>,
    trusted: false,
    meta: { ...spec.meta, skill: skill.id, skillVersion: skill.version, tier },
    // With nothing to trace the call runs as it is: no closure, no span.
    handler: (args, ctx) =>
      nothingToTrace() ? call(args, ctx) : traced(span, facts, () => call(args, ctx)),
  })
  async function call(args: A, ctx: TurnContext): Promise<ToolResult> {
    guard?.enter(name)
    try {
      // The gate's own promise is awaited (one hop); `enforceToolGate` would add a second.
      const request = { tool: name, args, skill: gateSkill, tier }
      const pending = askToolGate(gate, ctx, request, codes)
      if (pending !== undefined) {
        try {
          await pending
        } catch (err) {
          throw gateFailure(err, request, codes)
        }
      }
      // What a call makes (a process, a scratch folder) is the loaded skill's (leak reports).
      let result = withResourceOwner(guard, spec.run, args, ctx)
      // Most tier-1 handlers answer synchronously; only a thenable costs a hop.
      if (isThenable(result)) result = await result
      if (spooling === false) return result
      const spooled = spoolToolResult(result, ctx.spool, keepingFor(spooling?.artifactClass?.()))
      return isThenable(spooled) ? await spooled : spooled
    } finally {
      guard?.exit()
    }
  }
}
