import { type Dirent, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// One test layout (issue 34 item 8), written down in test/README.md: a test
// of one part of src/ sits in the folder that mirrors it; a test of a purpose
// that crosses parts (escape attempts, end-to-end tasks, fuzzing, the shared
// PostgreSQL store, the docs) sits in that purpose's folder; every file that
// is not a test is a helper in test/helpers/ or data in test/fixtures/.
const TEST = resolve(import.meta.dirname)
const ROOT = resolve(TEST, '..')
const PURPOSES = ['docs', 'e2e', 'escape', 'fixtures', 'fuzz', 'helpers', 'postgres']
/** The files one `import` of the package reaches: its export map's sources. */
const ENTRIES = new Set(
  Object.values(
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).exports as Record<
      string,
      { import: string }
    >,
  ).map((e) => (e.import ?? '').replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
)

function entries(dir: string): Dirent[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[]
}

function relOf(e: Dirent): string {
  return relative(TEST, join(e.parentPath, e.name))
}

describe('one test layout', () => {
  it('mirrors src/ or names a purpose with every test folder', () => {
    const folders = entries(TEST)
      .filter((e) => e.isDirectory() && !relOf(e).startsWith('fixtures'))
      .map(relOf)
    expect(folders.length).toBeGreaterThan(10)
    const stray = folders.filter((rel) => {
      const top = rel.split('/')[0] as string
      return !PURPOSES.includes(top) && !existsSync(join(ROOT, 'src', rel))
    })
    expect(stray).toEqual([])
  })

  it('keeps every file that is not a test in helpers/ or fixtures/', () => {
    const loose = entries(TEST)
      .filter((e) => e.isFile())
      .map(relOf)
      .filter((rel) => !rel.endsWith('.test.ts') && !/^(helpers|fixtures)\//.test(rel))
      .filter((rel) => !['global-setup.ts', 'README.md'].includes(rel))
    expect(loose).toEqual([])
  })

  it('has end-to-end tests reach src/ only through the public entries', () => {
    expect(ENTRIES.has('src/index.ts')).toBe(true)
    const reached: string[] = []
    for (const e of entries(join(TEST, 'e2e')).filter((d) => d.name.endsWith('.test.ts'))) {
      const file = join(e.parentPath, e.name)
      for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']*)'/g)) {
        const target = relative(ROOT, resolve(e.parentPath, m[1] as string)).replace(/\.js$/, '.ts')
        if (target.startsWith('src/') && !ENTRIES.has(target))
          reached.push(`${relOf(e)} → ${target}`)
      }
    }
    expect(reached).toEqual([])
  })
})
