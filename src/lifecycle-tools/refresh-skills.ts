import { Tool } from '../common/tool.js'
import { LIFECYCLE_TOOL, SKILL_ID_PROPERTY } from '../manager/lifecycle-tool-names.js'
import type { SkillManager } from '../manager/types.js'
import type { LifecycleGate } from './gated.js'

/** `refresh_skills`: rediscovers and swaps changed loaded skills (all, or one), with an outcome per loaded skill. */
export function forgeRefreshSkills(manager: SkillManager, { gated }: LifecycleGate): Tool {
  return new Tool<{ skill?: string }>({
    name: LIFECYCLE_TOOL.refresh,
    description:
      'Rediscover skills and replace loaded ones that changed with their new version (all, or only `skill`). outcomes says, per loaded skill: updated, unchanged, kept (the new version failed; the old one stays, with the reason) or removed (gone from the catalog, still loaded until unloaded).',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { skill: SKILL_ID_PROPERTY },
    },
    handler: gated(LIFECYCLE_TOOL.refresh, (args, ctx) =>
      manager.refreshAndProject(ctx, args.skill),
    ),
  })
}
