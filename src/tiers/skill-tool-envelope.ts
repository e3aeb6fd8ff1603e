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
  const { name, skill, tier } = spec
  const span = CALL_SPAN[tier]
  const facts = Object.freeze({ tool: name, skillId: skill.id, skillVersion: skill.version, tier })
  const call = envelopeCall(spec, resultKeeper(spec))
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
}

/** How `spec`'s results are kept: spooled as its artifact class (resolved per call), or as they are. */
function resultKeeper<A>(spec: SkillToolSpec<A>): Keep {
  const spooling = spec.spool
  if (spooling === false) return (result) => result
  const { skill, name } = spec
  const provenance = Object.freeze({ skill: skill.id, skillVersion: skill.version, tool: name })
  // The artifact class is resolved per call (a deployer may bind it later); its keeping is made once per class.
  let keeping: ResultKeeping | undefined
  let keepingClass: typeof SpooledArtifact | undefined
  return (result, ctx) => {
    const cls = spooling?.artifactClass?.()
    if (keeping === undefined || cls !== keepingClass) {
      keeping = resultKeeping(cls, provenance)
      keepingClass = cls
    }
    return spoolToolResult(result, ctx.spool, keeping)
  }
}

type Keep = (result: ToolResult, ctx: TurnContext) => ToolResult | Promise<ToolResult>

/**
 * One call through the envelope: guard in, gate, the tier's work, `keep`, guard out.
 * No async frame: a call whose gate answers synchronously runs in one go, and one whose gate
 * answers with a promise chains the rest on it once. The guard counts the call out however it ends.
 */
function envelopeCall<A>(
  spec: SkillToolSpec<A>,
  keep: Keep,
): (args: A, ctx: TurnContext) => ToolResult | Promise<ToolResult> {
  const { name, skill, tier, gate, guard, run } = spec
  const codes = spec.gateCodes ?? TOOL_GATE_CODES
  const gateSkill = Object.freeze({ id: skill.id, version: skill.version })
  function call(args: A, ctx: TurnContext): ToolResult | Promise<ToolResult> {
    guard?.enter(name)
    const request = { tool: name, args, skill: gateSkill, tier }
    let pending: PromiseLike<void> | undefined
    try {
      pending = askToolGate(gate, ctx, request, codes)
    } catch (err) {
      guard?.exit()
      throw err
    }
    if (pending === undefined) return afterGate(args, ctx)
    return Promise.resolve(pending).then(
      () => afterGate(args, ctx),
      (err: unknown) => {
        guard?.exit()
        throw gateFailure(err, request, codes)
      },
    )
  }
  /** The tier's work and the result's keeping, once the gate allowed; counts the call out. */
  function afterGate(args: A, ctx: TurnContext): ToolResult | Promise<ToolResult> {
    let later = false
    try {
      // What a call makes (a process, a scratch folder) is the loaded skill's (leak reports).
      const result = withResourceOwner(guard, run, args, ctx)
      // Most tier-1 handlers answer synchronously; only a thenable costs a hop.
      if (isThenable(result)) {
        later = true
        return keepLater(result, ctx)
      }
      const kept = keep(result, ctx)
      if (isThenable(kept)) {
        later = true
        return exitAfter(kept)
      }
      return kept
    } finally {
      if (!later) guard?.exit()
    }
  }
  async function keepLater(result: PromiseLike<ToolResult>, ctx: TurnContext): Promise<ToolResult> {
    try {
      const kept = keep(await result, ctx)
      return isThenable(kept) ? await kept : kept
    } finally {
      guard?.exit()
    }
  }
  async function exitAfter(kept: PromiseLike<ToolResult>): Promise<ToolResult> {
    try {
      return await kept
    } finally {
      guard?.exit()
    }
  }
  return call
}
