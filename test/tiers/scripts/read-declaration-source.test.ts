import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readDeclarationSource } from '../../../src/tiers/scripts/deps/read-declaration-source.js'
import { MAX_DECLARATION_SOURCE_CHARS } from '../../../src/tiers/scripts/deps/read-requirements.js'
import { scriptRequirementsOf } from '../../../src/tiers/scripts/deps/script-requirements.js'

const dir = mkdtempSync(join(tmpdir(), 'skillhost-declared-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('readDeclarationSource: the one read every declaration reader uses', () => {
  it('reads at most the cap of a larger file, from its start', async () => {
    const path = join(dir, 'big.py')
    const head = 'import alpha_pkg\n'
    writeFileSync(path, head + '#'.repeat(4 * MAX_DECLARATION_SOURCE_CHARS))
    const text = await readDeclarationSource(path)
    expect(text?.length).toBe(MAX_DECLARATION_SOURCE_CHARS)
    expect(text?.startsWith(head)).toBe(true)
  })

  it('gives undefined for what cannot be read as a file: absent, a folder', async () => {
    expect(await readDeclarationSource(join(dir, 'absent.txt'))).toBeUndefined()
    mkdirSync(join(dir, 'folder'))
    expect(await readDeclarationSource(join(dir, 'folder'))).toBeUndefined()
  })

  it('inference and declarations see the same capped text: an import past the cap is not inferred', async () => {
    const root = mkdtempSync(join(dir, 'skill-'))
    mkdirSync(join(root, 'scripts'))
    const filler = `${'# filler\n'.repeat(MAX_DECLARATION_SOURCE_CHARS / 9 + 1)}`
    writeFileSync(join(root, 'scripts', 'top.py'), `import alpha_pkg\n${filler}import beta_pkg\n`)
    const found = await scriptRequirementsOf(root, 'scripts/top.py')
    expect(found).toEqual({
      requirements: [{ name: 'alpha-pkg', text: 'alpha-pkg' }],
      inferred: true,
    })
  })

  it("takes SKILL.md's install lines as a guess for the skill, and requirements.txt as a declaration", async () => {
    // A public finance skill says `pip install pandas numpy openbb` in its SKILL.md while its
    // script imports only the standard library: refusing that script for missing packages
    // (as the copy carrying SKILL.md first did) refuses the legitimate.
    const root = mkdtempSync(join(dir, 'skill-'))
    mkdirSync(join(root, 'scripts'))
    writeFileSync(
      join(root, 'SKILL.md'),
      '---\nname: s\ndescription: d\n---\npip install pandas numpy\n',
    )
    writeFileSync(join(root, 'scripts', 'calc.py'), 'import json\n')
    expect(await scriptRequirementsOf(root, 'scripts/calc.py')).toEqual({
      requirements: [
        { name: 'numpy', text: 'numpy' },
        { name: 'pandas', text: 'pandas' },
      ],
      inferred: true,
    })
    writeFileSync(join(root, 'requirements.txt'), 'pandas\n')
    expect(await scriptRequirementsOf(root, 'scripts/calc.py')).toEqual({
      requirements: [
        { name: 'numpy', text: 'numpy' },
        { name: 'pandas', text: 'pandas' },
      ],
      inferred: false,
    })
  })
})
