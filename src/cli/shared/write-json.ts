/** Pieces are gathered up to this many characters before each write. */
const CHUNK = 64 * 1024

/**
 * Writes `JSON.stringify(value, null, 2)` and a newline through `write`, the
 * same text, built one array element at a time for the arrays directly under
 * `value`: a catalog of tens of thousands of skills is never one string (nor
 * its escaped copy and its bytes) in memory at once. JSON strings hold no raw
 * line break, so an element's lines are indented by replacing each `\n`.
 */
export function writeJson(value: Readonly<Record<string, unknown>>, write: (text: string) => void) {
  let pending = ''
  const put = (text: string): void => {
    pending += text
    if (pending.length >= CHUNK) {
      write(pending)
      pending = ''
    }
  }
  // The keys JSON.stringify keeps: it leaves out undefined, functions and symbols.
  const keys = Object.keys(value).filter((k) => {
    const v = value[k]
    return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol'
  })
  if (keys.length === 0) put('{}')
  keys.forEach((key, i) => {
    put(`${i === 0 ? '{' : ','}\n  ${JSON.stringify(key)}: `)
    const field = value[key]
    if (!Array.isArray(field) || field.length === 0) {
      put(JSON.stringify(field, null, 2).replaceAll('\n', '\n  '))
      return
    }
    field.forEach((item: unknown, j) => {
      const text = JSON.stringify(item, null, 2) ?? 'null'
      put(`${j === 0 ? '[' : ','}\n    ${text.replaceAll('\n', '\n    ')}`)
    })
    put('\n  ]')
  })
  put(keys.length === 0 ? '\n' : '\n}\n')
  if (pending !== '') write(pending)
}
