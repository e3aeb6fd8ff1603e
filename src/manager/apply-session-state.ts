import type { TurnContext } from '../common/turn-context.js'
import type { SkillSessionSkill, SkillSessionState } from './session-state.js'
import type { SkillManager } from './types.js'

/** The skills `manager` has loaded, as a session state stores them. */
export function sessionSkills(manager: SkillManager): SkillSessionSkill[] {
  return manager.loadedSkills().map(({ id, version, channel }) => ({ id, version, channel }))
}

/**
 * Brings `manager` (projecting into `ctx`) to the skills `state` names: what
 * it has loaded that the state does not (or at another version) is unloaded,
 * then what the state names is loaded at exactly its version, in the state's
 * order. A version the sources no longer hold fails with
 * `E_SKILL_VERSION_GONE`; what was applied before it stays.
 */
export async function applySessionState(
  manager: SkillManager,
  ctx: TurnContext,
  state: SkillSessionState,
): Promise<void> {
  const wanted = new Map(state.skills.map((s) => [s.id, s.version]))
  for (const { id, version } of manager.loadedSkills())
    if (wanted.get(id) !== version) await manager.unload(id, ctx)
  const have = new Map(manager.loadedSkills().map((s) => [s.id, s.version]))
  for (const { id, version } of state.skills) {
    if (have.get(id) === version && manager.projected(ctx).includes(id)) continue
    await manager.load(id, ctx, { version })
  }
}

/** True when two states name the same skills, versions, channels and workspace. */
export function sameSessionState(a: SkillSessionState, b: SkillSessionState): boolean {
  return JSON.stringify(normal(a)) === JSON.stringify(normal(b))
}

function normal(s: SkillSessionState): unknown {
  return {
    skills: s.skills.map(({ id, version, channel }) => [id, version, channel]),
    workspace: s.workspace ? [s.workspace.replica, s.workspace.path] : null,
  }
}
