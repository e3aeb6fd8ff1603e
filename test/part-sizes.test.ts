import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// No class absorbs every feature again (issue 21): every file of src/ stays
// within 400 lines and every class within 250.
const SRC = resolve(import.meta.dirname, '../src')
const MAX_FILE_LINES = 400
const MAX_CLASS_LINES = 250

/** Each top-level class in `text` with its length in lines, declaration to closing brace. */
function classLengths(text: string): { name: string; lines: number }[] {
  const lines = text.split('\n')
  const out: { name: string; lines: number }[] = []
  lines.forEach((line, i) => {
    const match = /^(?:export )?(?:abstract )?class (\w+)/.exec(line)
    if (!match) return
    const end = lines.findIndex((l, j) => j > i && l === '}')
    out.push({ name: match[1] as string, lines: (end === -1 ? lines.length : end) - i + 1 })
  })
  return out
}

const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'))

describe('src/ parts stay small', () => {
  it('measures a class from its declaration to its closing brace', () => {
    const text = 'export class A {\n  x = 1\n}\n\nclass B {\n}\n'
    expect(classLengths(text)).toEqual([
      { name: 'A', lines: 3 },
      { name: 'B', lines: 2 },
    ])
  })

  it(`no file in src/ over ${MAX_FILE_LINES} lines, no class over ${MAX_CLASS_LINES}`, () => {
    const tooLong: string[] = []
    for (const file of files) {
      const text = readFileSync(join(SRC, file), 'utf8')
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
      if (lines > MAX_FILE_LINES) tooLong.push(`${file}: ${lines} lines`)
      for (const c of classLengths(text))
        if (c.lines > MAX_CLASS_LINES) tooLong.push(`${file} › ${c.name}: ${c.lines} lines`)
    }
    expect(tooLong).toEqual([])
  })
})
