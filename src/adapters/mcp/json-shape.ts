/**
 * How much structure a JSON request body may have for its size. Parsed, an
 * array or object costs V8 about 40 to 70 bytes however few bytes of text
 * made it (`[]` is 2), so a body of brackets grew the heap by about 25 times
 * its size: the count of containers is bounded by the bytes, and nesting by
 * a fixed depth (deeper values also exhaust the stack of whatever walks
 * them: validators, `JSON.stringify`).
 */
export const JSON_BODY_SHAPE = {
  /** Deepest nesting of arrays and objects. */
  maxDepth: 100,
  /** Containers allowed whatever the size (small messages are never refused). */
  freeContainers: 4096,
  /** Past those, at most one container per this many bytes of body. */
  bytesPerContainer: 8,
} as const

/** What `scanJsonShape` found: the containers counted and the depth reached, and what refused it. */
export interface JsonShape {
  readonly containers: number
  readonly depth: number
  readonly refused: 'depth' | 'containers' | undefined
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d

/**
 * Counts the arrays and objects of the JSON text in `bytes[0, length)` and
 * their deepest nesting, in one pass and without building anything,
 * stopping at the first bound passed. Brackets inside strings are text. It
 * does not validate the JSON (`JSON.parse` does, after it).
 */
export function scanJsonShape(bytes: Uint8Array, length: number): JsonShape {
  const maxContainers =
    JSON_BODY_SHAPE.freeContainers + Math.floor(length / JSON_BODY_SHAPE.bytesPerContainer)
  let containers = 0
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < length; i++) {
    const b = bytes[i] as number
    if (inString) {
      if (b === BACKSLASH) i++
      else if (b === QUOTE) inString = false
      continue
    }
    if (b === QUOTE) inString = true
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      containers++
      depth++
      if (depth > deepest) deepest = depth
      if (depth > JSON_BODY_SHAPE.maxDepth) return { containers, depth: deepest, refused: 'depth' }
      if (containers > maxContainers) return { containers, depth: deepest, refused: 'containers' }
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--
  }
  return { containers, depth: deepest, refused: undefined }
}
