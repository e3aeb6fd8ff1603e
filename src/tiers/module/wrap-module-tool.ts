import type { SpooledArtifact } from '../../common/artifacts/index.js'
import { SkillHostError } from '../../common/errors.js'
import type { ToolGate } from '../../common/gate.js'
import { RetrievableSet } from '../../common/retrievable.js'
import type { SpoolStore } from '../../common/spool-store.js'
import { Tool, type ToolHandler, type ToolResult } from '../../common/tool.js'
import { ToolRegistry } from '../../common/tool-registry.js'
import type { TurnContext } from '../../common/turn-context.js'
import type { SkillRef } from '../../skill-model/declarations.js'
import { type CallGuard, forgeSkillTool } from '../skill-tool-envelope.js'
import { toHostToolResult } from '../spool-result.js'

export type { CallGuard }

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
  // The handler is called as a plain function (no `this`), as `Tool.execute` calls it.
  const call: (args: unknown, ctx: TurnContext) => unknown =
    handler ?? ((args, ctx) => original.execute(args, ctx))
  const { skill } = binding
  return forgeSkillTool({
    name,
    description: String(original.description ?? ''),
    inputSchema: original.inputSchema,
    tier: 'module',
    skill,
    gate: binding.gate,
    guard: binding.guard,
    spool: { artifactClass: binding.artifactClass },
    run: (args, ctx) => {
      let raw: unknown
      let thenable: boolean
      try {
        raw = call(args, sealContext(ctx))
        // Reading `then` can run skill code (a Proxy trap), so it is inside the guard too.
        thenable = isThenable(raw)
      } catch (thrown) {
        throw failed(name, skill.id, thrown)
      }
      // Most handlers answer synchronously; only a thenable costs a hop.
      if (thenable) {
        return Promise.resolve(raw).then(
          (settled) => checked(name, skill.id, settled),
          (thrown: unknown) => {
            throw failed(name, skill.id, thrown)
          },
        )
      }
      return checked(name, skill.id, raw)
    },
  })
}

// Whatever was thrown (a forged SkillHostError, a Proxy, an Error whose name
// is a secret) the model sees one fixed message; the original stays host-side.
function failed(name: string, skillId: string, thrown: unknown): SkillHostError {
  return new SkillHostError(
    'E_SKILL_TOOL_FAILED',
    `Tool '${name}' of skill '${skillId}' failed; details are kept by the host.`,
    { data: { skill: skillId, tool: name, recoverable: isRecoverable(thrown) }, cause: thrown },
  )
}

function checked(name: string, skillId: string, raw: unknown): ToolResult {
  const result = toHostToolResult(raw)
  if (result === undefined) {
    throw new SkillHostError(
      'E_SKILL_TOOL_BAD_RESPONSE',
      `Tool '${name}' of skill '${skillId}' returned ${describeResult(raw)}; a skill tool must return a string, bytes, Media or Media[].`,
      { data: { skill: skillId, tool: name } },
    )
  }
  return result
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
