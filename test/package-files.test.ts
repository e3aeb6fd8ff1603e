import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The files `npm pack` would put in the tarball, as package-relative paths. */
function packedFiles(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts'],
      { cwd: root },
      (err, out) => {
        if (err) return reject(err)
        const [pack] = JSON.parse(out) as { files: { path: string }[] }[]
        resolve((pack?.files ?? []).map((f) => f.path))
      },
    )
  })
}

describe('the package', () => {
  it('ships every doc the README links to', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const linked = [...new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]!))]
    expect(linked.length).toBeGreaterThan(3)
    const files = await packedFiles()
    for (const doc of linked) expect(files, doc).toContain(doc)
    expect(files).toContain('docs/errors.md')
  })

  it('ships the example skills the README quick start serves from node_modules/skillhost', async () => {
    const quickStart = readFileSync(join(root, 'README.md'), 'utf8')
    expect(quickStart).toContain("roots: ['node_modules/skillhost/examples/skills']")
    const files = await packedFiles()
    for (const file of ['SKILL.md', 'skillhost.yaml', 'scripts/count.sh'])
      expect(files).toContain(`examples/skills/word-count/${file}`)
  })
})
