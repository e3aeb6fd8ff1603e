import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { guardSessionStore } from '../../common/internal.js'
import { rpcError } from './http-replies.js'
import { type HttpServeContext, startHttpSession } from './http-session-start.js'
import type { HttpSessionEntry } from './http-session-table.js'
import { replayInitialize } from './replay-initialize.js'

/**
 * Opens a session for an `initialize` request. With a store the session is
 * stored before the transport answers, so a store that is down answers 503
 * `E_SESSION_STORE_FAILED` (thrown from here) and never a transport error
 * carrying the driver's words; an initialize the transport then refuses
 * removes what was stored.
 */
export async function openHttpSession(
  ctx: HttpServeContext,
  req: IncomingMessage,
  res: ServerResponse,
  initialize: unknown,
): Promise<void> {
  // The id is chosen before the manager, so the factory can name what it
  // makes for the session (its spool folder) after it.
  const id = randomUUID()
  const release = ctx.table.admit(ctx.owner)
  let entry: HttpSessionEntry
  let stored = false
  try {
    entry = await startHttpSession(ctx, id, true)
    try {
      const { store } = ctx
      if (entry.shared && store) {
        const state = await entry.shared.initialState()
        const session = { sessionId: id, owner: ctx.owner, transport: { initialize }, state }
        await guardSessionStore('create', () => store.create(session))
        stored = true
      }
      await entry.transport.handleRequest(req, res, initialize)
    } catch (err) {
      await entry.session.close().catch(() => undefined)
      throw err
    }
  } finally {
    release()
  }
  if (ctx.table.get(id) === entry) return
  // An initialize that failed never produced a session: release what it made.
  await entry.session.close()
  if (stored)
    await ctx.store?.remove(id).catch((error) => ctx.onSharedError?.({ sessionId: id, error }))
}

/** Restores a stored session here, once however many requests ask at the same time. */
export function restoreHttpSession(
  ctx: HttpServeContext,
  id: string,
): Promise<HttpSessionEntry | undefined> {
  let pending = ctx.restoring.get(id)
  if (!pending) {
    pending = restoreOnce(ctx, id).finally(() => ctx.restoring.delete(id))
    ctx.restoring.set(id, pending)
  }
  return pending
}

async function restoreOnce(
  ctx: HttpServeContext,
  id: string,
): Promise<HttpSessionEntry | undefined> {
  const { store } = ctx
  const stored = store ? await guardSessionStore('get', () => store.get(id)) : undefined
  const initialize = (stored?.transport as { initialize?: unknown } | undefined)?.initialize
  if (!stored || stored.owner !== ctx.owner || !isInitializeRequest(initialize)) return undefined
  const release = ctx.table.admit(ctx.owner)
  let entry: HttpSessionEntry
  try {
    entry = await startHttpSession(ctx, id, false)
    try {
      await replayInitialize(entry.transport, initialize, id)
      await entry.shared?.restore()
    } catch (err) {
      await entry.session.close().catch(() => undefined)
      throw err
    }
  } finally {
    release()
  }
  ctx.table.register(id, entry, 'restored')
  return entry
}

/**
 * A DELETE of a stored session this process does not hold: ends it for every
 * process. 200 only once the store has removed it (and its results); a store
 * that fails throws `E_SESSION_STORE_FAILED`, and the session stays.
 */
export async function deleteStoredSession(
  ctx: HttpServeContext,
  id: string,
  res: ServerResponse,
): Promise<void> {
  const { store } = ctx
  if (!store) return rpcError(res, 404, 'Session not found')
  const stored = await guardSessionStore('get', () => store.get(id))
  if (!stored || stored.owner !== ctx.owner) return rpcError(res, 404, 'Session not found')
  await guardSessionStore('remove', () => store.remove(id))
  res.writeHead(200).end()
}
