import type { SpooledArtifact } from '../../common/artifacts/index.js'
import { SkillHostError } from '../../common/errors.js'
import { enforceToolGate, type ToolGate } from '../../common/gate.js'
import { RetrievableSet } from '../../common/retrievable.js'
import type { SpoolStore } from '../../common/spool-store.js'
import { Tool, type ToolHandler } from '../../common/tool.js'
import { ToolRegistry } from '../../common/tool-registry.js'
import type { TurnContext } from '../../common/turn-context.js'
import type { SkillRef } from '../../skill-model/declarations.js'
import { spoolToolResult, toHostToolResult } from '../spool-result.js'

/** Counts calls in and out of a loaded skill, refusing once it is retired. */
export interface CallGuard {
  enter(toolName: string): void
  exit(): void
}

/** What the host decides for a wrapped module tool. */
export interface ModuleToolBinding {
  readonly skill: SkillRef
  readonly gate: ToolGate
  readonly guard: CallGuard
  /** Resolves the artifact class at call time; throws `E_SKILL_ARTIFACT_UNAVAILABLE` if unbound. */
  readonly artifactClass: () => typeof SpooledArtifact | undefined
}

// A handler gets a sealed context: the turn's id and abort signal, but not the
// host's registry, projections or spool, so a plugin cannot register tools or
// rewrite what the model sees.
const sealedSpool: SpoolStore = Object.freeze({
  put: () => Promise.reject(new Error('the spool is not writable from a skill tool')),
  get: async () => undefined,
  stat: async () => undefined,
  delete: async () => false,
})
const sealedByTurn = new WeakMap<TurnContext, TurnContext>()
function sealContext(ctx: TurnContext): TurnContext {
  let sealed = sealedByTurn.get(ctx)
  if (!sealed) {
    // The registry and projections are frozen-empty views: nothing a handler
    // registers there reaches the model, and one view serves the whole turn.
    sealed = Object.freeze({
      id: ctx.id,
      abortSignal: ctx.abortSignal,
      tools: new ToolRegistry(),
      retrievables: new RetrievableSet(),
      spool: sealedSpool,
    })
    sealedByTurn.set(ctx, sealed)
  }
  return sealed
}

// Only typeof is read from a thrown value: `instanceof`, `name` and `message`
// can all run skill code (a Proxy trap, a getter) and carry skill-chosen text.
function isRecoverable(thrown: unknown): boolean {
  try {
    return (
      typeof thrown === 'object' &&
      thrown !== null &&
      Object.prototype.isPrototypeOf.call(Error.prototype, thrown)
    )
  } catch {
    return false
  }
}

/**
 * Rebuilds an imported tool into a new host-owned `Tool`. The original is
 * neither mutated nor referenced by the wrapper's properties. The wrapper runs
 * the host gate before the handler, contains errors (`E_SKILL_TOOL_FAILED`,
 * original kept as host-side `cause`), validates the response
 * (`E_SKILL_TOOL_BAD_RESPONSE`), spools it by the deployer's artifact binding,
 * stamps provenance and is always `trusted: false`. It does not race the
 * handler against the abort signal: a handler that never settles stays pending.
 */
export function wrapModuleTool(original: Tool, binding: ModuleToolBinding): Tool {
  const name = String(original.name)
  const handler: ToolHandler<unknown> | undefined = Tool.handlerOf(original)
  // A foreign tool object without our handler slot is still callable through
  // its own `execute`, which validates a second time; ours skips that.
  const call: (args: unknown, ctx: TurnContext) => unknown = handler
    ? (args, ctx) => handler(args, ctx)
    : (args, ctx) => original.execute(args, ctx)
  const { skill, gate, guard } = binding
  const provenance = Object.freeze({ skill: skill.id, skillVersion: skill.version, tool: name })
  const gateSkill = Object.freeze({ id: skill.id, version: skill.version })
  return new Tool({
    name,
    description: String(original.description ?? ''),
    inputSchema: original.inputSchema,
    trusted: false,
    meta: { skill: skill.id, skillVersion: skill.version, tier: 'module' },
    handler: async (args, ctx) => {
      guard.enter(name)
      try {
        await enforceToolGate(gate, ctx, { tool: name, args, skill: gateSkill, tier: 'module' })
        let raw: unknown
        try {
          raw = call(args, sealContext(ctx))
          // Most handlers answer synchronously; only a thenable costs a hop.
          if (isThenable(raw)) raw = await raw
        } catch (thrown) {
          // Whatever was thrown (a forged SkillHostError, a Proxy, an Error
          // whose name is a secret) the model sees one fixed message.
          throw new SkillHostError(
            'E_SKILL_TOOL_FAILED',
            `Tool '${name}' of skill '${skill.id}' failed; details are kept by the host.`,
            {
              data: { skill: skill.id, tool: name, recoverable: isRecoverable(thrown) },
              cause: thrown,
            },
          )
        }
        const result = toHostToolResult(raw)
        if (result === undefined) {
          throw new SkillHostError(
            'E_SKILL_TOOL_BAD_RESPONSE',
            `Tool '${name}' of skill '${skill.id}' returned ${describeResult(raw)}; a skill tool must return a string, bytes, Media or Media[].`,
            { data: { skill: skill.id, tool: name } },
          )
        }
        const spooled = spoolToolResult(result, {
          spool: ctx.spool,
          artifactClass: binding.artifactClass(),
          provenance,
        })
        return isThenable(spooled) ? await spooled : spooled
      } finally {
        guard.exit()
      }
    },
  })
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  )
}

// typeof and Array.isArray run no skill code (a revoked Proxy makes
// isArray throw, hence the guard).
function describeResult(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null) return 'null'
  if (typeof value === 'function') return 'a function'
  if (typeof value !== 'object') return `a ${typeof value}`
  try {
    if (Array.isArray(value)) return 'an array that is not all Media'
  } catch {}
  return 'an object'
}
