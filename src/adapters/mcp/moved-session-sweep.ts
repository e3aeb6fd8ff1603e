import type { HttpServeContext } from './http-session-start.js'

/**
 * One pass of the moved-session sweep: lets go of the shared sessions this
 * process holds that another process wrote since this one last served them
 * (took them over, or changed them), and of those ended elsewhere. One
 * query for all held sessions (`SkillSessionStore.revisions`). A session is
 * let go only when, at the moment of the decision, it has no request in
 * flight here (an open notification stream counts) and none arrived within
 * `idleMs`; the decision and the end happen in one turn of the event loop,
 * so a request that comes after finds the session gone and restores it, as
 * any takeover does, and one already in flight keeps it. Letting go ends
 * the session here only (manager, workspace folder, spool handles); its
 * stored state and files stay for the process that serves it. Resolves to
 * how many sessions it let go; a store that fails lets none go.
 */
export async function sweepMovedSessions(ctx: HttpServeContext, idleMs: number): Promise<number> {
  const { store } = ctx
  if (!store?.revisions) return 0
  const held = ctx.table.entries().filter(([, entry]) => entry.shared !== undefined)
  if (held.length === 0) return 0
  let stored: ReadonlyMap<string, number>
  try {
    stored = await store.revisions(held.map(([id]) => id))
  } catch {
    // The next pass asks again; a request meanwhile meets the failure itself.
    return 0
  }
  const now = Date.now()
  let released = 0
  for (const [id, entry] of held) {
    if (ctx.table.get(id) !== entry || entry.inFlight > 0 || now - entry.lastSeen < idleMs) continue
    if (stored.get(id) === entry.shared?.revision) continue
    ctx.table.end(id)
    released++
  }
  return released
}
