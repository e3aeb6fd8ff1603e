import { SkillHostError } from '../errors.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'

/** One step of a JSON path: an object key or an array index (negative counts from the end). */
export type JsonPathSegment = { readonly key: string } | { readonly index: number }

const invalid = (message: string) => new SkillHostError('E_ARTIFACT_READ_INVALID', message)
const MAX_SEGMENTS = 64

/**
 * Parses a small path language: `a.b[0].c`, `$.a`, `["key with spaces"]`,
 * `[-1]`. No filters, wildcards or expressions, and nothing is ever
 * evaluated: a path is a list of keys and indexes. Throws
 * `E_ARTIFACT_READ_INVALID` with the position of a syntax error.
 */
export function parseJsonPath(path: string): JsonPathSegment[] {
  if (path.length > ARTIFACT_READ_LIMITS.maxJsonPathLength) {
    throw invalid(
      `The path is ${path.length} characters; the limit is ${ARTIFACT_READ_LIMITS.maxJsonPathLength}.`,
    )
  }
  const out: JsonPathSegment[] = []
  let i = path.startsWith('$') ? 1 : 0
  const fail = (what: string): never => {
    throw invalid(
      `Bad path at character ${i + 1}: ${what}. Use a form like a.b[0].c or ["odd key"].`,
    )
  }
  while (i < path.length) {
    if (out.length >= MAX_SEGMENTS) fail(`more than ${MAX_SEGMENTS} steps`)
    const c = path[i]
    if (c === '.' || (out.length === 0 && i === (path.startsWith('$') ? 1 : 0) && c !== '[')) {
      if (c === '.') i++
      const m = /^[^.[\]\s"']+/.exec(path.slice(i))
      if (!m) fail('expected a key name')
      out.push({ key: (m as RegExpExecArray)[0] })
      i += (m as RegExpExecArray)[0].length
      continue
    }
    if (c === '[') {
      const rest = path.slice(i)
      const num = /^\[\s*(-?\d{1,9})\s*\]/.exec(rest)
      if (num) {
        out.push({ index: Number(num[1]) })
        i += num[0].length
        continue
      }
      const str = /^\[\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\]/.exec(rest)
      if (str) {
        const raw = str[1] as string
        const body = raw.slice(1, -1)
        let key: string
        try {
          key =
            raw[0] === '"'
              ? (JSON.parse(raw) as string)
              : (JSON.parse(`"${body.replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string)
        } catch {
          return fail('the quoted key has a bad escape')
        }
        out.push({ key })
        i += str[0].length
        continue
      }
      fail('expected [number] or ["key"]')
    }
    fail(`unexpected ${JSON.stringify(c)}`)
  }
  return out
}

/** Formats segments back into path text, for messages. */
export function formatJsonPath(segments: readonly JsonPathSegment[]): string {
  let text = '$'
  for (const s of segments) {
    if ('index' in s) text += `[${s.index}]`
    else text += /^[A-Za-z_$][\w$-]*$/.test(s.key) ? `.${s.key}` : `[${JSON.stringify(s.key)}]`
  }
  return text
}

/**
 * The value at `segments` in parsed JSON. Keys are looked up as own
 * properties only, so `__proto__` or `constructor` find data, never the
 * prototype. Throws `E_ARTIFACT_READ_INVALID` naming the step that failed and
 * what was there instead.
 */
export function resolveJsonPath(root: unknown, segments: readonly JsonPathSegment[]): unknown {
  let value = root
  for (let k = 0; k < segments.length; k++) {
    const step = segments[k] as JsonPathSegment
    const at = formatJsonPath(segments.slice(0, k))
    if ('index' in step) {
      if (!Array.isArray(value))
        throw invalid(
          `${at} is ${describeJsonType(value)}, not an array; [${step.index}] does not apply.`,
        )
      const idx = step.index < 0 ? value.length + step.index : step.index
      if (idx < 0 || idx >= value.length)
        throw invalid(`${at} has ${value.length} items; [${step.index}] is out of range.`)
      value = value[idx]
    } else {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw invalid(
          `${at} is ${describeJsonType(value)}, not an object; key ${JSON.stringify(step.key)} does not apply.`,
        )
      }
      if (!Object.hasOwn(value, step.key)) {
        const keys = Object.keys(value)
        const listed = keys
          .slice(0, 30)
          .map((key) => JSON.stringify(key))
          .join(', ')
        throw invalid(
          `${at} has no key ${JSON.stringify(step.key)}. Keys: ${listed}${keys.length > 30 ? ', …' : ''}`,
        )
      }
      value = (value as Record<string, unknown>)[step.key]
    }
  }
  return value
}

/** A short description of a JSON value's type: `an object with 3 keys`, `an array of 2 items`, `a string`. */
export function describeJsonType(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length} items`
  if (value === null) return 'null'
  if (typeof value === 'object') return `an object with ${Object.keys(value).length} keys`
  return `a ${typeof value}`
}
