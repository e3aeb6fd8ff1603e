import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { SkillManager } from '../../manager/index.js'
import { createSkillMcpServer, type SkillMcpSession } from './create-skill-mcp-server.js'
import { responseClosed } from './http-replies.js'
import type { HttpServeContext } from './http-session-start.js'
import { openSessionManager } from './serve-stdio.js'

/** A session made for one stateless request, as `withThrowawaySession` hands it over. */
export interface ThrowawaySession {
  readonly session: SkillMcpSession
  readonly manager: SkillManager
  /** Resolves when the connection `res` answers on is done (the client went away, or the response ended). */
  readonly closed: Promise<void>
}

/**
 * Runs `use` with a session of its own for one 2026-07-28 request
 * answered on `res` (a new id, its own manager), counted against the
 * session limits while it runs (refused 503 before anything is made when
 * they are reached). `use` never runs for a client already gone, even one
 * gone while the session was made (the close is listened for before
 * anything is awaited). The session is closed, and its place in the limits
 * released, when `use` settles or throws.
 */
export async function withThrowawaySession(
  ctx: HttpServeContext,
  res: ServerResponse,
  use: (opened: ThrowawaySession) => Promise<void>,
): Promise<void> {
  const release = ctx.table.admit(ctx.owner)
  let gone = false
  const closed = responseClosed(res).then(() => {
    gone = true
  })
  try {
    const { manager, disposables } = await openSessionManager(ctx.createManager, randomUUID())
    const session = createSkillMcpServer({
      ...ctx.sessionOptions,
      manager,
      disposeManager: true,
      disposables,
    })
    try {
      if (gone) return
      await use({ session, manager, closed })
    } finally {
      await session.close()
    }
  } finally {
    release()
  }
}
