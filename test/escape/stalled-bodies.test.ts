// Issue 35, "unfinished HTTP bodies still pin memory past the cap": 40
// connections each sending most of a 3.5 MiB body and stalling grew the
// server past the 64 MiB `maxBodyBytesInFlight`. The server now counts what
// it holds (each body's own buffer, whole, reserved before it is allocated;
// a declared length at once), so the refusals below are exact counts.
import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type HttpLimit,
  type McpHttpServer,
  SERVE_HTTP_LIMITS,
  serveMcpHttp,
} from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { initializeBody } from '../helpers/mcp-http-requests.js'

const MiB = 1024 * 1024
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function serve() {
  const limits: HttpLimit[] = []
  const http = await serveMcpHttp({
    createManager: () =>
      createSkillManager({
        sources: [new InMemorySkillSource({ skills: [] })],
        gate: async () => undefined,
      }),
    onLimit: (event) => limits.push(event.limit),
    // Far past the test: no body is cut off by its deadline here.
    bodyTimeoutMs: 10 * 60_000,
  })
  cleanups.push(() => http.close())
  return { http, limits }
}

/** A raw connection that sends the headers of a POST (and `bodyBytes` of its body), then stalls. */
function stalled(
  http: McpHttpServer,
  headers: string,
  bodyBytes: number,
): { socket: Socket; answer: () => string } {
  const socket = connect(Number(http.url.port), '127.0.0.1')
  let received = ''
  socket.on('data', (d) => {
    received += d.toString('latin1')
  })
  socket.on('error', () => undefined)
  cleanups.push(() => void socket.destroy())
  socket.write(
    `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${http.url.port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n${headers}\r\n`,
  )
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  for (let left = bodyBytes; left > 0; left -= chunk.length)
    socket.write(chunk.subarray(0, Math.min(left, chunk.length)))
  return { socket, answer: () => received }
}

/** Waits, bounded by count, until `ready()`; the waits it took. */
async function until(ready: () => boolean, most = 1000): Promise<number> {
  let waits = 0
  for (; !ready() && waits < most; waits++) await sleep(10)
  return waits
}

/** Sends a whole POST on a raw connection; the status the server answers with. */
async function rawStatus(http: McpHttpServer, body: string): Promise<number> {
  const c = stalled(http, `content-length: ${Buffer.byteLength(body)}\r\n`, 0)
  c.socket.write(body)
  await until(() => /^HTTP\/1\.1 \d{3}/.test(c.answer()))
  c.socket.destroy()
  return Number(c.answer().slice(9, 12))
}

const initialize = initializeBody('x')

describe('unfinished bodies are counted by what the server holds, and refused past the cap', () => {
  it('40 stalled 3.5 MiB bodies: exactly those past 64 MiB are refused, at their headers', async () => {
    const { http, limits } = await serve()
    const declared = 3.5 * MiB
    const fit = Math.floor(SERVE_HTTP_LIMITS.maxBodyBytesInFlight / declared)
    expect(fit).toBe(18)
    // Headers only: nothing of any body sent, and the server already knows what each would cost.
    const conns = Array.from({ length: 40 }, () =>
      stalled(http, `content-length: ${declared}\r\n`, 0),
    )
    const refused = () => conns.filter((c) => c.answer().startsWith('HTTP/1.1 503')).length
    const waits = await until(() => refused() === 40 - fit)
    expect(waits).toBeLessThan(1000)
    expect(refused()).toBe(22)
    expect(limits).toEqual(Array(22).fill('bodyBytesInFlight'))
    // The stalled ones fill the cap but for 1 MiB: a small legitimate request still fits.
    expect(await rawStatus(http, initialize)).toBe(200)
    // Most of each body arrives and stalls: none of the held ones is refused for it.
    for (const c of conns) if (!c.answer()) c.socket.write(Buffer.alloc(3 * MiB, 0x20))
    const big = initialize.padEnd(2 * MiB, ' ')
    expect(await rawStatus(http, big)).toBe(503)
    expect(refused()).toBe(22)
    // Gone: their room is given back.
    for (const c of conns) c.socket.destroy()
    let status = await rawStatus(http, big)
    for (let i = 0; i < 100 && status !== 200; i++) status = await rawStatus(http, big)
    expect(status).toBe(200)
  })

  it('bodies with no declared length are counted by the buffer they grow, not the bytes so far', async () => {
    const { http, limits } = await serve()
    // Each sends 3 MiB of a chunked body: its buffer has grown to the 4 MiB maxBodyBytes.
    const conns = Array.from({ length: 40 }, () => {
      const c = stalled(http, 'transfer-encoding: chunked\r\n', 0)
      c.socket.write(`${(3 * MiB).toString(16)}\r\n`)
      c.socket.write(Buffer.alloc(3 * MiB, 0x20))
      return c
    })
    const refused = () => conns.filter((c) => c.answer().startsWith('HTTP/1.1 503')).length
    const most = SERVE_HTTP_LIMITS.maxBodyBytesInFlight / SERVE_HTTP_LIMITS.maxBodyBytes
    expect(most).toBe(16)
    const waits = await until(() => refused() >= 40 - most)
    expect(waits).toBeLessThan(1000)
    expect(refused()).toBeGreaterThanOrEqual(24)
    expect(limits.every((l) => l === 'bodyBytesInFlight')).toBe(true)
  })
})
