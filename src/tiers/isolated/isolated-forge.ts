import { JsonArtifact } from '../../common/artifacts/index.js'
import type { ToolGate } from '../../common/gate.js'
import type { Tool } from '../../common/tool.js'
import type { SkillDescriptor, SkillIsolatedToolDeclaration } from '../../sources/types.js'
import { forgeSkillTool } from '../skill-tool-envelope.js'
import type { ForgeTarget, TierForge } from '../tier-forge.js'
import { renderIsolatedResult } from './render-isolated-result.js'
import { runIsolatedTool } from './run-isolated-tool.js'
import type { GuestResolver, SkillIsolationConfig } from './types.js'
import { TIMEOUT_ARG, withTimeoutParam } from './with-timeout-param.js'

/**
 * Tier 2's forge for the manager: each declared isolated tool becomes a host-owned,
 * untrusted `Tool` that counts itself in and out of its record, runs the gate,
 * evaluates the source in a fresh guest (killed on timeout or abort), and
 * spools the JSON result. Without `resolveGuest`, the unsafe in-process guest
 * (validated at construction) is loaded on first use, so the root entry never
 * pulls QuickJS unless a skill needs it.
 *
 * Each manager makes its own forge, so a fresh key here is the manager's
 * identity as a pool owner: a pool shared by several managers (one per MCP
 * session in `skillhost serve`) takes turns between them. `config.owner`
 * overrides it, e.g. to share one quota across a user's sessions.
 */
export function createIsolatedForge(config: SkillIsolationConfig, gate: ToolGate): TierForge {
  const owner = config.owner ?? Symbol('skillhost.manager')
  let inProcess: Promise<GuestResolver> | undefined
  const resolveGuest: GuestResolver = async (options) => {
    if (config.resolveGuest) return config.resolveGuest(options)
    inProcess ??= import('./in-process-guest.js').then((m) =>
      m.createInProcessGuest(config.limits ? { limits: config.limits } : {}),
    )
    return (await inProcess)(options)
  }
  const effective: SkillIsolationConfig = { ...config, resolveGuest, owner }
  return {
    names: (d: SkillDescriptor) => (d.isolatedTools ?? []).map((t) => String(t.name)),
    unavailable: () => [],
    forge: async (record: ForgeTarget) =>
      (record.descriptor.isolatedTools ?? []).map((decl) =>
        forgeOne(effective, gate, record, decl),
      ),
  }
}

/**
 * Formatters write a lone arrow-function file as `;async (args) => {…};`
 * (the leading `;` guards against ASI). The guest wraps the source in
 * parentheses, so those statement semicolons are trimmed first.
 */
export function normalizeIsolatedSource(source: string): string {
  return source
    .trim()
    .replace(/^;+\s*/, '')
    .replace(/\s*;+$/, '')
}

function forgeOne(
  config: SkillIsolationConfig,
  gate: ToolGate,
  record: ForgeTarget,
  decl: SkillIsolatedToolDeclaration,
): Tool {
  const name = String(decl.name)
  const skill = { id: record.id, version: record.version }
  const declared = {
    name,
    description: String(decl.description),
    source: normalizeIsolatedSource(String(decl.source)),
    params: decl.params,
  }
  return forgeSkillTool<Record<string, unknown>>({
    name,
    description: declared.description,
    inputSchema: withTimeoutParam(decl.params, config.maxTimeoutSeconds),
    tier: 'isolated',
    skill,
    gate,
    guard: record,
    spool: { artifactClass: () => JsonArtifact },
    run: async (args, ctx) => {
      const { [TIMEOUT_ARG]: timeoutSeconds, ...rest } = args
      const result = await runIsolatedTool(config, declared as never, rest, {
        signal: ctx.abortSignal,
        timeoutSeconds: timeoutSeconds as number | undefined,
      })
      return renderIsolatedResult(result)
    },
  })
}
