import type { Readable } from 'node:stream'

/** Captured output of two streams under one shared byte budget. */
export interface CapturedOutput {
  readonly stdout: Uint8Array
  readonly stderr: Uint8Array
  readonly truncated: boolean
  readonly bytes: number
}

/**
 * Reads stdout and stderr to the end, keeping at most `maxBytes` in total,
 * first come first kept; the rest is read and dropped so the child never
 * blocks on a full pipe. Host memory stays within `maxBytes` plus one chunk.
 */
export class OutputCapture {
  readonly #max: number
  #kept = 0
  #bytes = 0
  #truncated = false
  readonly #chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] }

  constructor(maxBytes: number) {
    this.#max = Math.max(0, Math.floor(maxBytes))
  }

  /** Starts draining `stream` into the named channel. */
  attach(channel: 'stdout' | 'stderr', stream: Readable): void {
    stream.on('data', (chunk: Buffer) => {
      this.#bytes += chunk.length
      const room = this.#max - this.#kept
      if (room <= 0) {
        this.#truncated = true
        return
      }
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room)
      if (kept.length < chunk.length) this.#truncated = true
      // Copy a partial chunk so the dropped rest of a large buffer is not retained.
      this.#chunks[channel].push(kept === chunk ? chunk : Buffer.from(kept))
      this.#kept += kept.length
    })
  }

  /** What was captured so far. */
  result(): CapturedOutput {
    return {
      stdout: new Uint8Array(Buffer.concat(this.#chunks.stdout)),
      stderr: new Uint8Array(Buffer.concat(this.#chunks.stderr)),
      truncated: this.#truncated,
      bytes: this.#bytes,
    }
  }
}
