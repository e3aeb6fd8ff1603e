import type { IncomingMessage } from 'node:http'
import { HttpRefusal } from './http-replies.js'
import { JSON_BODY_SHAPE, scanJsonShape } from './json-shape.js'

/** How a request body is read: its size cap, its deadline, and the server's bytes in flight. */
export interface BodyLimits {
  /** Largest body, in bytes (413 past it). */
  readonly maxBytes: number
  /** Time from the first read to the body's end, in ms (408 past it). */
  readonly timeoutMs: number
  /**
   * Bytes every body being read holds now (the buffers they are copied into,
   * whole), and the most they may (503 past it).
   */
  readonly inFlight: { used: number; readonly max: number }
}

/** The smallest buffer a body without a declared length starts with. */
const FIRST_BUFFER = 16 * 1024

const tooLarge = (max: number): HttpRefusal =>
  new HttpRefusal(413, `Request body larger than ${max} bytes`, 'bodyBytes')
const busy = (): HttpRefusal =>
  new HttpRefusal(503, 'Server busy: too many request bytes in flight', 'bodyBytesInFlight', 1)

/**
 * One body being read. Each chunk is copied into a buffer of the body's own
 * (so no socket buffer a chunk is a slice of stays pinned), and what counts
 * against `inFlight` is that buffer's whole capacity, reserved before it is
 * allocated: a declared `content-length` is reserved at once, so a body the
 * server cannot hold is refused before its bytes arrive; a body without one
 * grows by doubling, each growth reserved first.
 */
class BodyBuffer {
  readonly #limits: BodyLimits
  #buffer: Buffer | undefined
  #reserved = 0
  size = 0

  constructor(limits: BodyLimits) {
    this.#limits = limits
  }

  /** Reserves `capacity` bytes in all (never shrinks); false when the server's cap would pass. */
  reserve(capacity: number): boolean {
    const more = capacity - this.#reserved
    if (more <= 0) return true
    if (this.#limits.inFlight.used + more > this.#limits.inFlight.max) return false
    this.#limits.inFlight.used += more
    this.#reserved = capacity
    return true
  }

  /** Appends `chunk`, or the refusal that stops the body. */
  append(chunk: Buffer): HttpRefusal | undefined {
    const need = this.size + chunk.length
    if (need > this.#limits.maxBytes) return tooLarge(this.#limits.maxBytes)
    if (need > this.#reserved) {
      const grown = Math.max(need, this.#reserved * 2, FIRST_BUFFER)
      if (!this.reserve(Math.min(this.#limits.maxBytes, grown))) return busy()
    }
    if (!this.#buffer || this.#buffer.length < need) {
      const next = Buffer.allocUnsafeSlow(this.#reserved)
      this.#buffer?.copy(next, 0, 0, this.size)
      this.#buffer = next
    }
    chunk.copy(this.#buffer, this.size)
    this.size = need
    return undefined
  }

  /** The body as JSON, its shape checked before `JSON.parse` builds anything. */
  parse(): unknown {
    const bytes = this.#buffer ?? Buffer.alloc(0)
    const shape = scanJsonShape(bytes, this.size)
    if (shape.refused === 'depth')
      throw new HttpRefusal(
        413,
        `Request body nested deeper than ${JSON_BODY_SHAPE.maxDepth} levels`,
        'bodyShape',
      )
    if (shape.refused === 'containers')
      throw new HttpRefusal(
        413,
        `Request body has more arrays and objects than its size allows (at most ${JSON_BODY_SHAPE.freeContainers} plus one per ${JSON_BODY_SHAPE.bytesPerContainer} bytes)`,
        'bodyShape',
      )
    try {
      return JSON.parse(bytes.toString('utf8', 0, this.size))
    } catch {
      throw new HttpRefusal(400, 'Parse error: the body is not JSON')
    }
  }

  /** Gives the reservation back and drops the buffer. Idempotent. */
  release(): void {
    this.#limits.inFlight.used -= this.#reserved
    this.#reserved = 0
    this.#buffer = undefined
  }
}

/**
 * The request body as JSON within `limits`: 413 when it is (or declares
 * itself) larger than `maxBytes`, or nests deeper or holds more arrays and
 * objects than `JSON_BODY_SHAPE` allows; 503 when the server's bodies in
 * flight would pass their cap; 408 when it has not ended within
 * `timeoutMs`; 400 when it is not JSON. Its buffer counts against
 * `inFlight` until it is parsed or refused.
 */
export function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const header = req.headers['content-length']
  const declared = header === undefined ? undefined : Number(header)
  if (declared !== undefined && Number.isFinite(declared) && declared > limits.maxBytes)
    return Promise.reject(tooLarge(limits.maxBytes))
  const body = new BodyBuffer(limits)
  if (declared !== undefined && Number.isSafeInteger(declared) && !body.reserve(declared))
    return Promise.reject(busy())
  return new Promise((resolve, reject) => {
    let settled = false
    const done = (err: unknown, value?: unknown): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onEnd)
      req.off('close', onClose)
      body.release()
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (chunk: Buffer): void => {
      const refusal = body.append(chunk)
      if (refusal) done(refusal)
    }
    const onEnd = (err?: unknown): void => {
      if (err) {
        done(err)
        return
      }
      try {
        done(undefined, body.parse())
      } catch (refusal) {
        done(refusal)
      }
    }
    const onClose = (): void => done(new HttpRefusal(400, 'The request body ended early'))
    const timer = setTimeout(
      () =>
        done(
          new HttpRefusal(
            408,
            `Request body not received within ${limits.timeoutMs} ms`,
            'bodyTimeout',
          ),
        ),
      limits.timeoutMs,
    )
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onEnd)
    req.on('close', onClose)
  })
}
