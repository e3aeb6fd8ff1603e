import { Tool } from '../common/tool.js'
import { LIFECYCLE_TOOL } from '../manager/lifecycle-tool-names.js'
import type { SkillManager } from '../manager/types.js'
import { modelSafeUnavailable } from '../skill-model/unavailable-tool.js'
import type { LifecycleGate } from './gated.js'

/**
 * `list_loaded_skills`: what is projected into this turn, what is initialized
 * in the session, which copies are loaded by ref, and the declared tools this
 * host does not offer (model-safe reasons only).
 */
export function forgeListLoadedSkills(manager: SkillManager, { gated }: LifecycleGate): Tool {
  return new Tool<Record<string, never>>({
    name: LIFECYCLE_TOOL.listLoaded,
    description:
      'List the skills projected into this turn, the skills initialized in this session, and the tools they declare that this host does not offer (with why and what would enable them).',
    inputSchema: { type: 'object', additionalProperties: false, properties: {} },
    handler: gated(LIFECYCLE_TOOL.listLoaded, async (_args, ctx) => {
      const toolsUnavailable = manager
        .loadedSkills()
        .flatMap((s) =>
          s.unavailableTools.map((t) => ({ skill: s.id, ...modelSafeUnavailable(t) })),
        )
      // Which copy is loaded, for a skill loaded by a shadowed copy's ref.
      const copies = manager
        .loadedSkills()
        .flatMap((s) => (s.ref === s.id ? [] : [{ id: s.id, ref: s.ref }]))
      return {
        projected: manager.projected(ctx),
        initialized: manager.loaded(),
        ...(copies.length ? { copies } : {}),
        ...(toolsUnavailable.length ? { toolsUnavailable } : {}),
      }
    }),
  })
}
