import { describe, expect, it } from 'vitest'
import { writeJson } from '../../src/cli/shared/write-json.js'

const written = (value: Record<string, unknown>): { text: string; writes: number } => {
  let text = ''
  let writes = 0
  writeJson(value, (t) => {
    text += t
    writes++
  })
  return { text, writes }
}

describe('writeJson', () => {
  it('writes what JSON.stringify(value, null, 2) does, and a newline', () => {
    const values: Record<string, unknown>[] = [
      {},
      { a: undefined, f: () => 1 },
      { ok: true, skills: [], notSearched: [] },
      {
        roots: ['/a', '/b'],
        skills: [
          { id: 'x', nested: { list: [1, [2, { z: null }]], s: 'line\nbreak "q" \u2028' } },
          { id: 'y', tools: {} },
        ],
        problems: [{ code: 'E', message: 'm', skipped: undefined }],
        sourceErrors: [],
        n: 3,
        o: { deep: [{}] },
      },
    ]
    for (const value of values)
      expect(written(value).text).toBe(`${JSON.stringify(value, null, 2)}\n`)
  })

  it('writes a long array in pieces, not as one string', () => {
    const skills = Array.from({ length: 5000 }, (_, i) => ({
      id: `skill-${i}`,
      text: 'x'.repeat(40),
    }))
    const { text, writes } = written({ skills })
    expect(text).toBe(`${JSON.stringify({ skills }, null, 2)}\n`)
    expect(writes).toBeGreaterThan(1)
  })
})
