import { SkillHostError } from './common/errors.js'
import { enforceToolGate, type ToolGate } from './common/gate.js'
import { Tool } from './common/tool.js'
import type { TurnContext } from './common/turn-context.js'
import {
  LIFECYCLE_TOOL,
  READ_SKILL_FILE_TOOL,
  SKILL_ID_PROPERTY,
} from './manager/lifecycle-tool-names.js'
import { loadedScriptTier } from './manager/script-tier.js'
import { MAX_SKILL_ARGUMENTS_LENGTH } from './manager/skill-arguments.js'
import { SKILL_ROOT_PATH } from './manager/skill-files.js'
import type { SkillManager } from './manager/types.js'
import { modelSafeUnavailable } from './skill-model/unavailable-tool.js'

/**
 * The default size budget of one `list_skills` page, in characters of the
 * tool's JSON result: about 8,000 tokens, room for some 25 entries with
 * descriptions at the spec's 1,024-character cap. A page stops before the
 * entry that would take it past the budget, so a catalog of long descriptions
 * takes more pages rather than flooding the context.
 */
export const DEFAULT_LIST_PAGE_CHARS = 32_000

/** Options for `forgeSkillTools`. */
export interface ForgeSkillToolsOptions {
  /** Gates the five tools; defaults to the manager's gate. */
  readonly gate?: ToolGate
  /** Page size cap for list_skills. Default 50. */
  readonly maxListLimit?: number
  /**
   * Size budget of one list_skills page, in characters of its JSON result.
   * Default `DEFAULT_LIST_PAGE_CHARS`. A page always holds at least one entry,
   * so a single entry larger than the budget still pages forward.
   */
  readonly maxListChars?: number
}

const SKILL_ID = SKILL_ID_PROPERTY

/** What a page without a query says when copies are hidden: where they are. Fixed text. */
const SHADOWED_NOTE =
  'shadowed counts copies of listed ids that are not listed here; list_skills with a query (e.g. the id) shows the matching ones with their refs, and load_skill takes such a ref to load that copy. The plain id always loads the listed one.'
const json = (value: unknown): string => JSON.stringify(value, null, 2)

/**
 * The longest `render(n)` (the result holding the first `n` of `items`) that
 * fits in `budget` characters, holding at least one item when there are any.
 * Each item's share is estimated from its own JSON; the final render is
 * measured and trimmed, so the bound holds exactly.
 */
function fitByChars(
  items: readonly unknown[],
  budget: number,
  render: (n: number) => string,
): string {
  let used = render(0).length
  let n = 0
  while (n < items.length) {
    // An entry sits in the `skills` array two levels deep: indented by four
    // more spaces per line, one line break before it and a comma after it.
    const text = json(items[n])
    const cost = text.length + 4 * (text.split('\n').length - 1) + 6
    if (n > 0 && used + cost > budget) break
    used += cost
    n += 1
  }
  let text = render(n)
  while (n > 1 && text.length > budget) text = render(--n)
  return text
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  const match = /^o:(\d{1,9})$/.exec(cursor)
  if (!match)
    throw new SkillHostError('E_TOOL_INVALID_ARGS', 'cursor is not one list_skills returned.')
  return Number(match[1])
}

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
 * The five lifecycle tools the model drives: `list_skills`,
 * `list_loaded_skills`, `refresh_skills`, `load_skill`, `unload_skill`. Each
 * is an ordinary `Tool` with JSON results, gated (the manager's gate unless
 * `options.gate` overrides it) before it does anything. When the manager runs
 * scripts, the workspace tools (`workspace_list`, `workspace_read`,
 * `workspace_write`, tier `workspace`) follow them. Register them with the
 * rest of your host tools. A skill marked `disableModelInvocation` is not in
 * `list_skills`, and `load_skill` refuses it with `E_SKILL_NOT_FOUND`.
 */
export function forgeSkillTools(
  manager: SkillManager,
  options: ForgeSkillToolsOptions = {},
): Tool[] {
  const gate = options.gate ?? manager.gate
  const maxLimit = options.maxListLimit ?? 50
  const maxChars = options.maxListChars ?? DEFAULT_LIST_PAGE_CHARS
  const gatedText =
    <A>(name: string, run: (args: A, ctx: TurnContext) => Promise<string>) =>
    async (args: A, ctx: TurnContext): Promise<string> => {
      await enforceToolGate(gate, ctx, { tool: name, args, tier: 'lifecycle' })
      return run(args, ctx)
    }
  const gated = <A>(name: string, run: (args: A, ctx: TurnContext) => Promise<unknown>) =>
    gatedText<A>(name, async (args, ctx) => json(await run(args, ctx)))

  const listSkills = new Tool<{
    refresh?: boolean
    query?: string
    limit?: number
    cursor?: string
  }>({
    name: LIFECYCLE_TOOL.list,
    description:
      'List the skills you can load (ref, id, name, description, version, whether loaded); load_skill takes the ref. Use query to filter by id, name or description: with a query, copies hidden by a skill of the same id are listed too, after the winners, each with shadowedBy and its own ref (source:root/folder). Page with cursor (a page holds up to limit entries, fewer when they are long). skipped, withWarnings and shadowed count skills not served, served with warnings, and hidden copies.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        refresh: { type: 'boolean', description: 'Rediscover skills first.' },
        query: { type: 'string', maxLength: 200 },
        limit: { type: 'integer', minimum: 1, maximum: maxLimit },
        cursor: { type: 'string', maxLength: 20 },
      },
    },
    handler: gatedText(LIFECYCLE_TOOL.list, async (args) => {
      if (args.refresh) await manager.refresh()
      const offset = decodeCursor(args.cursor)
      const limit = args.limit ?? maxLimit
      const { entries, total, counts, sourceErrors } = manager.search({
        ...(args.query ? { query: args.query } : {}),
        offset,
        limit,
        forModel: true,
      })
      // A pin is news to the model only when it stops a load: changed since pinned.
      const skills = entries.map(({ location: _hostOnly, warnings: _w, pin, ...entry }) =>
        pin?.state === 'changed-since-pinned' ? { ...entry, pin } : entry,
      )
      const page = (n: number) => ({
        skills: skills.slice(0, n),
        total,
        ...(offset + n < total ? { nextCursor: `o:${offset + n}` } : {}),
        ...(sourceErrors.length ? { sourceErrors } : {}),
        ...(counts.skipped ? { skipped: counts.skipped } : {}),
        ...(counts.withWarnings ? { withWarnings: counts.withWarnings } : {}),
        ...(counts.shadowed ? { shadowed: counts.shadowed } : {}),
        ...(counts.shadowed && !args.query ? { shadowedNote: SHADOWED_NOTE } : {}),
        unsafe: manager.unsafe,
      })
      return fitByChars(skills, maxChars, (n) => json(page(n)))
    }),
  })

  const listLoaded = new Tool<Record<string, never>>({
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

  const refreshSkills = new Tool<{ skill?: string }>({
    name: LIFECYCLE_TOOL.refresh,
    description:
      'Rediscover skills and replace loaded ones that changed with their new version (all, or only `skill`). outcomes says, per loaded skill: updated, unchanged, kept (the new version failed; the old one stays, with the reason) or removed (gone from the catalog, still loaded until unloaded).',
    inputSchema: { type: 'object', additionalProperties: false, properties: { skill: SKILL_ID } },
    handler: gated(LIFECYCLE_TOOL.refresh, (args, ctx) =>
      manager.refreshAndProject(ctx, args.skill),
    ),
  })

  const loadSkill = new Tool<{ skill: string; arguments?: string }>({
    name: LIFECYCLE_TOOL.load,
    description:
      "Load a skill by its ref from list_skills (its id; a shadowed copy's own ref loads that copy, one copy of an id at a time): its instructions enter your context and its tools become callable from your next step; the result lists the files it ships, which read_skill_file reads while it is loaded, and which interpreter (and version) each script tool runs with. Unload it when you're done.",
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['skill'],
      properties: {
        skill: SKILL_ID,
        arguments: {
          type: 'string',
          maxLength: MAX_SKILL_ARGUMENTS_LENGTH,
          description:
            'What the user invoked the skill with (the text after /skill-name): fills $ARGUMENTS, $0, $1… in its instructions. Omit when there is none.',
        },
      },
    },
    handler: gated(LIFECYCLE_TOOL.load, async (args, ctx) => {
      refuseHostOnly(manager, args.skill)
      const result = await manager.load(
        args.skill,
        ctx,
        args.arguments === undefined ? {} : { arguments: args.arguments },
      )
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

  const unloadSkill = new Tool<{ skill: string }>({
    name: LIFECYCLE_TOOL.unload,
    description:
      'Unload a skill: its instructions and tools leave your context. Results it already produced stay readable by id.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['skill'],
      properties: { skill: SKILL_ID },
    },
    handler: gated(LIFECYCLE_TOOL.unload, async (args, ctx) => {
      const result = await manager.unload(args.skill, ctx)
      return { id: result.id, toolsRemoved: result.toolsRemoved }
    }),
  })

  const workspace = manager.workspace
  return [
    listSkills,
    listLoaded,
    refreshSkills,
    loadSkill,
    unloadSkill,
    // A manager has a workspace only when it has scripts, so it loaded tier 3.
    ...(workspace
      ? (loadedScriptTier()?.forgeWorkspaceTools(() => workspace.open(), gate) ?? [])
      : []),
  ]
}
