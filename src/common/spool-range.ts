import { SkillHostError } from './errors.js'
import type { SpoolByteRange } from './spool-store.js'

/** A byte range resolved against a size: `start` ≤ `end` ≤ size. */
export interface ResolvedSpoolRange {
  readonly start: number
  readonly end: number
}

const isOffset = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0

/**
 * Checks `range` (untrusted: it may come from a model's read) and clamps it
 * to `size`. Anything but non-negative integers with `end` not before
 * `start` is `E_ARTIFACT_READ_INVALID`.
 */
export function resolveSpoolRange(
  range: SpoolByteRange | undefined,
  size: number,
): ResolvedSpoolRange {
  const start = range?.start ?? 0
  const end = range?.end ?? (isOffset(start) ? Math.max(start, size) : size)
  if (!isOffset(start) || !isOffset(end) || end < start)
    throw new SkillHostError(
      'E_ARTIFACT_READ_INVALID',
      'A spool byte range needs integer offsets 0 ≤ start ≤ end (end exclusive).',
      { data: { start: String(range?.start), end: String(range?.end) } },
    )
  return { start: Math.min(start, size), end: Math.min(end, size) }
}

/** How `spoolRangeStream` reads: pieces that never cross a multiple of `pieceBytes`. */
export interface SpoolPieceReader {
  readonly range: ResolvedSpoolRange
  readonly pieceBytes: number
  /** Exactly `length` bytes at `offset`; fewer means the item went away. */
  read(offset: number, length: number): Promise<Uint8Array>
  /** Called once when the stream ends, errors or is cancelled. */
  close?(): Promise<void>
}

/**
 * A pull stream over `reader.range`, one piece per read and none ahead, so a
 * large item is never whole in memory. A short piece (the item was deleted
 * meanwhile) errors the stream with `E_ARTIFACT_NOT_FOUND`.
 */
export function spoolRangeStream(reader: SpoolPieceReader): ReadableStream<Uint8Array> {
  let position = reader.range.start
  let closed = false
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    await reader.close?.()
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (position >= reader.range.end) {
            await close()
            controller.close()
            return
          }
          const boundary = (Math.floor(position / reader.pieceBytes) + 1) * reader.pieceBytes
          const length = Math.min(reader.range.end, boundary) - position
          const piece = await reader.read(position, length)
          if (piece.byteLength !== length)
            throw new SkillHostError(
              'E_ARTIFACT_NOT_FOUND',
              'The spooled item was deleted while it was being read.',
            )
          position += length
          controller.enqueue(piece)
        } catch (err) {
          await close().catch(() => undefined)
          controller.error(err)
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  )
}
