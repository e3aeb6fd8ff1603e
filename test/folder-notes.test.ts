import { type Dirent, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// Every folder of src/ opens with a note saying what it holds (issue 34): the
// doc comment its index.ts (or, for a tier, tier.ts) begins with, or a
// README.md beside its files.
const SRC = resolve(import.meta.dirname, '../src')

/** A folder's opening note, or undefined: a leading doc comment of index.ts or tier.ts, or README.md. */
function noteOf(dir: string): string | undefined {
  for (const face of ['index.ts', 'tier.ts']) {
    const file = join(dir, face)
    if (!existsSync(file)) continue
    const match = /^\/\*\*\n([\s\S]*?)\*\//.exec(readFileSync(file, 'utf8'))
    if (match) return match[1]
  }
  const readme = join(dir, 'README.md')
  return existsSync(readme) ? readFileSync(readme, 'utf8') : undefined
}

describe('every folder of src/ says what it holds', () => {
  it('has an opening note in every folder', () => {
    const dirs = (readdirSync(SRC, { recursive: true, withFileTypes: true }) as Dirent[])
      .filter((e) => e.isDirectory())
      .map((e) => join(e.parentPath, e.name).slice(SRC.length + 1))
    expect(dirs.length).toBeGreaterThan(20)
    const silent = ['', ...dirs].filter((rel) => {
      const note = noteOf(join(SRC, rel))
      // A note says something: more than a title line.
      return note === undefined || note.replace(/^#.*$/m, '').trim().length < 60
    })
    expect(silent.sort()).toEqual([])
  })

  it('reads a note from a doc comment or a README, and none from a line comment', () => {
    const root = resolve(import.meta.dirname, '..')
    expect(noteOf(join(root, 'src/manager'))).toMatch(/The manager \(`createSkillManager`\)/)
    expect(noteOf(join(root, 'src/cli/run'))).toMatch(/skillhost run/)
    expect(noteOf(join(root, 'examples'))).toBeUndefined()
  })
})
