import { SkillHostError } from '../common/errors.js'
import { Tool } from '../common/tool.js'
import {
  LIFECYCLE_TOOL,
  READ_SKILL_FILE_TOOL,
  SKILL_ID_PROPERTY,
} from '../manager/lifecycle-tool-names.js'
import { MAX_SKILL_ARGUMENTS_LENGTH } from '../manager/skill-arguments.js'
import { SKILL_ROOT_PATH } from '../manager/skill-files.js'
import type { SkillManager } from '../manager/types.js'
import { modelSafeUnavailable } from '../skill-model/unavailable-tool.js'
import type { LifecycleGate } from './gated.js'

/**
 * Claude Code's `disable-model-invocation` semantics: the model cannot load
 * such a skill on its own (it is not in its catalog either); the host can,
 * with `manager.load`, e.g. when the user asks for it by name.
 */
function refuseHostOnly(manager: SkillManager, id: string): void {
  if (typeof id !== 'string') return
  // A copy's ref is not in the search text: the whole catalog is looked at, for refs only.
  const hit = id.includes(':')
    ? manager.catalog().entries.find((e) => e.ref === id)
    : manager.search({ query: id }).entries.find((e) => e.id === id && e.shadowedBy === undefined)
  if (hit?.disableModelInvocation !== true) return
  throw new SkillHostError(
    'E_SKILL_NOT_FOUND',
    `No skill '${id.slice(0, 80)}' is offered to you; call list_skills to see what you can load.`,
    { data: { skill: id.slice(0, 80) } },
  )
}

/**
 * `load_skill`: loads a skill by id or a copy's ref (refusing host-only
 * skills with `E_SKILL_NOT_FOUND`) and answers with what the model may see:
 * its tools, body or handle, files, interpreters and permissions.
 */
export function forgeLoadSkill(manager: SkillManager, { gated }: LifecycleGate): Tool {
  return new Tool<{ skill: string; arguments?: string }>({
    name: LIFECYCLE_TOOL.load,
    description:
      "Load a skill by its ref from list_skills (its id; a shadowed copy's own ref loads that copy, one copy of an id at a time): its instructions enter your context and its tools become callable from your next step; the result lists the files it ships, which read_skill_file reads while it is loaded, and which interpreter (and version) each script tool runs with. Unload it when you're done.",
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['skill'],
      properties: {
        skill: SKILL_ID_PROPERTY,
        arguments: {
          type: 'string',
          maxLength: MAX_SKILL_ARGUMENTS_LENGTH,
          description:
            'What the user invoked the skill with (the text after /skill-name): fills $ARGUMENTS, $0, $1… in its instructions. Omit when there is none.',
        },
      },
    },
    handler: gated(LIFECYCLE_TOOL.load, async (args, ctx, span) => {
      refuseHostOnly(manager, args.skill)
      const result = await manager.load(
        args.skill,
        ctx,
        args.arguments === undefined ? {} : { arguments: args.arguments },
      )
      span.note({ skillId: result.id, skillVersion: result.version })
      return {
        id: result.id,
        ...(result.ref === result.id ? {} : { ref: result.ref }),
        version: result.version,
        channel: result.channel,
        toolsAdded: result.tools,
        ...(result.unavailableTools.length
          ? { toolsUnavailable: result.unavailableTools.map(modelSafeUnavailable) }
          : {}),
        ...(result.body === undefined ? {} : { body: result.body }),
        ...(result.handle === undefined ? {} : { handle: result.handle }),
        files: result.files,
        filesTotal: result.filesTotal,
        // Fixed keys and reasons from skillhost's own table: nothing the skill wrote.
        ...(result.ignored ? { ignored: result.ignored } : {}),
        // Sandbox paths only (describeInterpreter): what each script tool runs with.
        ...(result.interpreters ? { interpreters: result.interpreters } : {}),
        // Paths the skill itself asked for, and skillhost's own reasons: no session-policy path.
        ...(result.permissions ? { permissions: result.permissions } : {}),
        ...(result.files.length < result.filesTotal
          ? {
              moreFiles: `${READ_SKILL_FILE_TOOL} ${JSON.stringify({ skill: result.id, path: SKILL_ROOT_PATH, range: { startLine: result.files.length + 1 } })} lists the rest (path<TAB>size per line)`,
            }
          : {}),
      }
    }),
  })
}
