import { invalidParams } from './skill-server.js'

/**
 * Tools one `tools/list` page holds; `nextCursor` pages on. A session
 * offers the lifecycle tools plus its loaded skills' tools (each skill at
 * most a few dozen), so most lists fit one page; the bound keeps an answer
 * small whatever is loaded.
 */
export const TOOLS_LIST_PAGE = 100

/**
 * The page of `all` a `tools/list` cursor asks for: from the offset the
 * cursor carries (`t:<n>`, as the previous page gave it; none is the
 * start), `TOOLS_LIST_PAGE` at most, with `nextCursor` while more remain.
 * A cursor this server did not give is -32602.
 */
export function toolsListPage<T>(
  all: readonly T[],
  cursor: unknown,
): { items: T[]; nextCursor?: string } {
  let offset = 0
  if (cursor !== undefined) {
    const match = typeof cursor === 'string' ? /^t:(\d{1,6})$/.exec(cursor) : null
    if (!match) throw invalidParams('cursor is not one tools/list returned.')
    offset = Number(match[1])
  }
  const items = all.slice(offset, offset + TOOLS_LIST_PAGE)
  const next = offset + items.length
  return { items, ...(items.length > 0 && next < all.length ? { nextCursor: `t:${next}` } : {}) }
}
