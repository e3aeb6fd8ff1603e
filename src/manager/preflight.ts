import { isReservedReaderName } from '../common/artifacts/index.js'
import { SkillHostError } from '../common/errors.js'
import { TOOL_NAME_PATTERN } from '../common/tool.js'
import type { ToolRegistry } from '../common/tool-registry.js'

/** What preflight checks a skill's tool names against. */
export interface PreflightContext {
  readonly skillId: string
  /** Tools already in the turn: host tools and projected skill tools. */
  readonly hostTools: ToolRegistry
  /** Names no skill may take (reader and lifecycle names). */
  readonly reserved: ReadonlySet<string>
  /** Names held by other loaded skills: name → owning skill id. */
  readonly claimed: ReadonlyMap<string, string>
  /** Names owned by the version being replaced (a refresh swap may reuse them). */
  readonly replacing?: ReadonlySet<string>
}

/**
 * Checks every tool name of a skill before anything is registered:
 * provider-safe pattern (`E_SKILL_MANIFEST_INVALID`), duplicates within the
 * skill (`E_SKILL_TOOL_DUPLICATE`), and collisions with host tools, reserved
 * names and other skills (`E_SKILL_TOOL_COLLISION`). Throws on the first
 * failure, naming the tool and what it collides with.
 */
export function preflightToolNames(names: readonly string[], pre: PreflightContext): void {
  const seen = new Set<string>()
  for (const name of names) {
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw new SkillHostError(
        'E_SKILL_MANIFEST_INVALID',
        `Skill '${pre.skillId}' declares tool '${name.slice(0, 80)}', which is not provider-safe: use 1-64 of [a-zA-Z0-9_-].`,
        { data: { skill: pre.skillId } },
      )
    }
    if (seen.has(name)) {
      throw new SkillHostError(
        'E_SKILL_TOOL_DUPLICATE',
        `Skill '${pre.skillId}' declares tool '${name}' twice.`,
        {
          data: { skill: pre.skillId, tool: name },
        },
      )
    }
    seen.add(name)
    if (pre.reserved.has(name) || isReservedReaderName(name)) {
      throw collision(pre.skillId, name, 'a name reserved by the host')
    }
    const owner = pre.claimed.get(name)
    if (owner !== undefined && owner !== pre.skillId) {
      throw collision(pre.skillId, name, `a tool of loaded skill '${owner}'`)
    }
    if (pre.hostTools.has(name) && !pre.replacing?.has(name) && owner === undefined) {
      throw collision(pre.skillId, name, 'a host tool')
    }
  }
}

function collision(skillId: string, name: string, what: string): SkillHostError {
  return new SkillHostError(
    'E_SKILL_TOOL_COLLISION',
    `Skill '${skillId}' declares tool '${name}', which collides with ${what}; the skill was not loaded.`,
    { data: { skill: skillId, tool: name } },
  )
}
