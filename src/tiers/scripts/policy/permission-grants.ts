import { overlapsOwnFolder } from '../../../common/door/own-folders.js'
import { SkillHostError } from '../../../common/errors.js'
import { type GateVerdict, runToolGate, type ToolGate } from '../../../common/gate.js'
import type { TurnContext } from '../../../common/turn-context.js'
import {
  checkPermissionRequest,
  isHostPermissionPath,
  type PermissionOutcome,
  type SkillPermissionRequest,
} from '../../../skill-model/permission-request.js'
import { assertPolicySubset, grantPolicy, type PolicyGrant, type SandboxPolicy } from './policy.js'

/** The `tool` of the gate request that asks for a skill's permission profile. */
export const PERMISSIONS_GATE_TOOL = 'skill_permissions'

/** What a skill version's request came to: each entry's outcome, and what its calls bind. */
export interface PermissionJudgement {
  readonly outcomes: readonly PermissionOutcome[]
  readonly grant: PolicyGrant
}

const NONE: PolicyGrant = Object.freeze({ read: [], write: [] })

/** How many verdicts a manager remembers before it starts over. */
const MAX_REMEMBERED = 256

/** True when the session policy allows `grant` (the one subset check, `assertPolicySubset`). */
function withinSession(grant: PolicyGrant, session: SandboxPolicy): boolean {
  try {
    assertPolicySubset(grantPolicy(grant, session), session)
    return true
  } catch (err) {
    if (SkillHostError.is(err, 'E_SKILL_SCRIPT_POLICY_WIDENED')) return false
    throw err
  }
}

/**
 * Turns a skill's permission request into grants. Each absolute path is
 * judged alone against the session policy, by the same `assertPolicySubset`
 * every call's policy passes; one beyond it is refused
 * (`E_SKILL_SCRIPT_POLICY_WIDENED`, reason `beyond-session-policy`), and so
 * is one overlapping skillhost's own folders (`skillhost-folder`). The paths
 * that remain are the profile the gate is asked about, once per skill version
 * (one instance per manager remembers each verdict by id, version and
 * profile; an unavailable gate is asked again next time): allowing grants them all,
 * refusing grants none. A relative read is the skill's own file, readable
 * already; a relative write is refused (the skill copy is read-only); network
 * is refused in this version. A skill that requests nothing is not judged.
 */
export class PermissionGrants {
  readonly #verdicts = new Map<string, GateVerdict>()

  /**
   * `internal`: skillhost's own folders (`skillhostOwnFolders`: skill
   * copies, scratch, session workspaces, the sandbox base, the environment
   * cache, the deployer's state and lockfiles). The session policy may
   * hold them for skillhost's per-call mounts; a request overlapping one
   * (inside it or containing it) would reach other skills and conversations,
   * so it is refused whatever the session policy says.
   */
  constructor(
    readonly session: SandboxPolicy,
    readonly gate: ToolGate | undefined,
    readonly internal: readonly string[] = [],
  ) {}

  async judge(
    skill: { readonly id: string; readonly version: string },
    requested: unknown,
    ctx: TurnContext | undefined,
  ): Promise<PermissionJudgement | undefined> {
    // A source's descriptor is checked again by the one rule: a bad entry is not requested.
    const { request } = checkPermissionRequest(requested)
    if (request === undefined) return undefined
    // Outcomes in the order requested: reads, writes, then network; the gate fills the pending ones.
    const outcomes: (PermissionOutcome | { kind: 'read' | 'write'; path: string })[] = []
    const candidate = { read: [] as string[], write: [] as string[] }
    for (const kind of ['read', 'write'] as const) {
      for (const path of request[kind]) {
        if (!isHostPermissionPath(path)) {
          const inside = kind === 'read'
          const reason = inside ? 'inside-skill' : 'skill-read-only'
          outcomes.push({ kind, path, granted: inside, reason })
        } else if (overlapsOwnFolder(path, this.internal)) {
          const code = 'E_SKILL_SCRIPT_POLICY_WIDENED'
          outcomes.push({ kind, path, granted: false, reason: 'skillhost-folder', code })
        } else if (withinSession({ ...NONE, [kind]: [path] }, this.session)) {
          candidate[kind].push(path)
          outcomes.push({ kind, path })
        } else {
          const code = 'E_SKILL_SCRIPT_POLICY_WIDENED'
          outcomes.push({ kind, path, granted: false, reason: 'beyond-session-policy', code })
        }
      }
    }
    if (request.network)
      outcomes.push({ kind: 'network', granted: false, reason: 'network-unsupported' })
    const asked = candidate.read.length + candidate.write.length > 0
    const verdict = asked ? await this.#ask(skill, candidate, ctx) : undefined
    const granted = verdict?.outcome === 'allow'
    const reason =
      verdict?.outcome === 'allow'
        ? 'granted'
        : verdict?.outcome === 'refused'
          ? 'gate-refused'
          : 'gate-unavailable'
    return {
      outcomes: outcomes.map((o) => ('reason' in o ? o : { ...o, granted, reason })),
      grant: granted ? candidate : NONE,
    }
  }

  async #ask(
    skill: { readonly id: string; readonly version: string },
    profile: PolicyGrant,
    ctx: TurnContext | undefined,
  ): Promise<GateVerdict> {
    const key = JSON.stringify([skill.id, skill.version, profile.read, profile.write])
    const known = this.#verdicts.get(key)
    if (known !== undefined) return known
    if (ctx === undefined) return { outcome: 'unavailable', cause: new Error('no turn context') }
    const verdict = await runToolGate(this.gate, ctx, {
      tool: PERMISSIONS_GATE_TOOL,
      args: { skill: skill.id },
      tier: 'script',
      skill: { id: skill.id, version: skill.version },
      permissions: { read: [...profile.read], write: [...profile.write] },
    })
    if (verdict.outcome !== 'unavailable') {
      if (this.#verdicts.size >= MAX_REMEMBERED) this.#verdicts.clear()
      this.#verdicts.set(key, verdict)
    }
    return verdict
  }
}

/** The outcomes of a request the host cannot use: no script tool would run under it. */
export function unusedPermissions(
  request: SkillPermissionRequest | undefined,
): PermissionOutcome[] {
  if (request === undefined) return []
  return [
    ...request.read.map((path) => ({ kind: 'read' as const, path })),
    ...request.write.map((path) => ({ kind: 'write' as const, path })),
    ...(request.network ? [{ kind: 'network' as const }] : []),
  ].map((o) => ({ ...o, granted: false, reason: 'no-scripts' as const }))
}
