import type { TurnContext } from '../common/turn-context.js'
import type { SkillSessionSkill, SkillSessionState } from './session-state.js'
import type { SkillManager } from './types.js'

/** The skills `manager` has loaded, as a session state stores them. */
export function sessionSkills(manager: SkillManager): SkillSessionSkill[] {
  return manager.loadedSkills().map(({ id, ref, version, channel, arguments: args }) => ({
    id,
    ...(ref === id ? {} : { ref }),
    version,
    channel,
    ...(args === undefined ? {} : { arguments: args }),
  }))
}

/**
 * Brings `manager` (projecting into `ctx`) to the skills `state` names: what
 * it has loaded that the state does not (or another copy, or at another
 * version) is unloaded,
 * then what the state names is loaded at exactly its version (and with its
 * arguments), in the state's order. A skill loaded with other arguments counts
 * as another load: it is unloaded and loaded again. A version the sources no longer hold fails with
 * `E_SKILL_VERSION_GONE`; what was applied before it stays.
 */
export async function applySessionState(
  manager: SkillManager,
  ctx: TurnContext,
  state: SkillSessionState,
): Promise<void> {
  const wanted = new Map(state.skills.map((s) => [s.id, loadKey(s)]))
  for (const skill of manager.loadedSkills())
    if (wanted.get(skill.id) !== loadKey(skill)) await manager.unload(skill.id, ctx)
  const have = new Map(manager.loadedSkills().map((s) => [s.id, loadKey(s)]))
  for (const skill of state.skills) {
    const { id, version, arguments: args } = skill
    if (have.get(id) === loadKey(skill) && manager.projected(ctx).includes(id)) continue
    await manager.load(skill.ref ?? id, ctx, {
      version,
      ...(args === undefined ? {} : { arguments: args }),
    })
  }
}

/** What makes two loads of one skill the same: the copy, its version and its arguments. */
function loadKey(s: {
  readonly id: string
  readonly ref?: string
  readonly version: string
  readonly arguments?: string
}): string {
  return JSON.stringify([s.ref ?? s.id, s.version, s.arguments ?? null])
}

/** True when two states name the same skills, versions, channels, arguments, workspace and holder. */
export function sameSessionState(a: SkillSessionState, b: SkillSessionState): boolean {
  return JSON.stringify(normal(a)) === JSON.stringify(normal(b))
}

function normal(s: SkillSessionState): unknown {
  return {
    skills: s.skills.map(({ id, ref, version, channel, arguments: args }) => [
      id,
      ref ?? id,
      version,
      channel,
      args ?? null,
    ]),
    workspace: s.workspace ? [s.workspace.replica, s.workspace.path] : null,
    holder: s.holder ?? null,
  }
}
