/**
 * Strings of parsed text that no longer hold the text alive.
 *
 * V8 makes a substring of 13 or more characters a *sliced string*: a view
 * that keeps its whole parent. Every frontmatter value is a substring of the
 * SKILL.md head it was parsed from, so a catalog that keeps each skill's
 * name, description and extra keys would keep every head it read (8 MB on
 * 24,000 real skills). A copy made through a short concatenation is a new
 * flat string (https://bugs.chromium.org/p/v8/issues/detail?id=2869); unlike
 * a round trip through UTF-8 it keeps lone surrogates as they are.
 */
const detachString = (text: string): string => (text.length < 13 ? text : ` ${text}`.slice(1))

/**
 * `value` with every string copied free of the text it was sliced from:
 * strings, arrays and plain objects (null prototype kept) are rebuilt, any
 * other value is returned as it is. Keys keep their order. Depth is bounded
 * by the caller (frontmatter nesting is capped before this runs).
 */
export function detachStrings<T>(value: T): T {
  if (typeof value === 'string') return detachString(value) as T
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map(detachStrings) as T
  const proto = Object.getPrototypeOf(value)
  if (proto !== null && proto !== Object.prototype) return value
  const out: Record<string, unknown> = Object.create(proto)
  for (const [key, v] of Object.entries(value)) {
    // A `__proto__` key is data: assigned, it would set the copy's prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: detachStrings(v),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    else out[key] = detachStrings(v)
  }
  return out as T
}
