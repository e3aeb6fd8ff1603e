import { Tool } from '../common/tool.js'
import { LIFECYCLE_TOOL, SKILL_ID_PROPERTY } from '../manager/lifecycle-tool-names.js'
import type { SkillManager } from '../manager/types.js'
import type { LifecycleGate } from './gated.js'

/** `unload_skill`: the skill's instructions and tools leave the context; the result names the tools removed. */
export function forgeUnloadSkill(manager: SkillManager, { gated }: LifecycleGate): Tool {
  return new Tool<{ skill: string }>({
    name: LIFECYCLE_TOOL.unload,
    description:
      'Unload a skill: its instructions and tools leave your context. Results it already produced stay readable by id.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['skill'],
      properties: { skill: SKILL_ID_PROPERTY },
    },
    handler: gated(LIFECYCLE_TOOL.unload, async (args, ctx, span) => {
      const result = await manager.unload(args.skill, ctx)
      span.note({ skillId: result.id })
      return { id: result.id, toolsRemoved: result.toolsRemoved }
    }),
  })
}
