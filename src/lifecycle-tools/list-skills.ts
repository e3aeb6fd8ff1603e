import { SkillHostError } from '../common/errors.js'
import { Tool } from '../common/tool.js'
import { LIFECYCLE_TOOL } from '../manager/lifecycle-tool-names.js'
import type { SkillManager } from '../manager/types.js'
import { json, type LifecycleGate } from './gated.js'

/** What a page without a query says when copies are hidden: where they are. Fixed text. */
const SHADOWED_NOTE =
  'shadowed counts copies of listed ids that are not listed here; list_skills with a query (e.g. the id) shows the matching ones with their refs, and load_skill takes such a ref to load that copy. The plain id always loads the listed one.'

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
 * `list_skills`: the model's catalog, paged by `maxLimit` entries and
 * `maxChars` characters of JSON (a page holds at least one entry), without
 * host-only locations or warnings.
 */
export function forgeListSkills(
  manager: SkillManager,
  { gatedText }: LifecycleGate,
  maxLimit: number,
  maxChars: number,
): Tool {
  return new Tool<{
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
}
