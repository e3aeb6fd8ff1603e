import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isNeutralPath, mkdtempNeutral } from '../../../src/tiers/scripts/config/neutral-temp.js'

// The sandbox's base folder is drawn so its random letters never spell the
// host's or the user's name: a script reads that path in mountinfo.
// The parent's own letters must not spell the test's word ('q'), or no draw below it could be
// neutral: drawn again here until they do not (about 1 draw in 5 does).
const parents: string[] = []
do parents.push(mkdtempSync(join(tmpdir(), 'skillhost-neutral-')))
while (/q/i.test(parents.at(-1)!))
const parent = parents.at(-1)!
afterAll(() => {
  for (const p of parents) rmSync(p, { recursive: true, force: true })
})

describe('mkdtempNeutral', () => {
  it('draws again when the letters spell a word, and leaves no rejected draw behind', async () => {
    // One letter as the "host": about 1 draw in 5 spells it (1 - (60/62)^6),
    // so 60 folders without a redraw would all be neutral about once in 10^5.
    const words = ['q']
    const made: string[] = []
    for (let i = 0; i < 60; i++) made.push(await mkdtempNeutral(parent, 'base-', words))
    for (const dir of made) {
      expect(isNeutralPath(dir, words)).toBe(true)
      expect(statSync(dir).mode & 0o777).toBe(0o700)
    }
    expect(readdirSync(parent).sort()).toEqual(made.map((d) => basename(d)).sort())
  })

  it('takes the first draw when the parent or the prefix already names a word', async () => {
    const named = await mkdtempNeutral(parent, 'q-', ['q'])
    expect(basename(named).startsWith('q-')).toBe(true)
    // Every letter a word: the parent's path already spells one, so no draw
    // could be neutral and none is tried again.
    const before = readdirSync(parent).length
    const words = [...'abcdefghijklmnopqrstuvwxyz0123456789']
    const any = await mkdtempNeutral(parent, '-', words)
    expect(readdirSync(parent)).toHaveLength(before + 1)
    expect(basename(any).startsWith('-')).toBe(true)
  })
})
