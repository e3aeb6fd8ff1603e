import { rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readScanned, scanSkillFolder } from '../../src/sources/discovery/scan-skill-folder.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import { rejectsWith } from '../helpers/error-code.js'
import { makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

describe('reads return only the bytes the scan validated', () => {
  it('refuses a file swapped for a symlink or another file after the scan; a normal read works', async () => {
    const root = await makeTree({
      'secret.txt': 'TOP SECRET',
      's/SKILL.md': skillMd('s'),
      's/a.txt': 'alpha',
      's/b.txt': 'bravo',
      's/c.txt': 'charlie',
    })
    roots.push(root)
    const dir = join(root, 's')
    const scan = await scanSkillFolder(dir, resolveSourceLimits())
    // The one read every reader of a scanned file uses.
    const read = (rel: string) => readScanned(scan, rel, scan.files.get(rel)!, 1024)
    await rm(join(dir, 'a.txt'))
    await symlink(join(root, 'secret.txt'), join(dir, 'a.txt'))
    await rejectsWith(read('a.txt'), 'E_SKILL_SOURCE_FAILED')
    await writeFile(join(dir, 'other.txt'), 'bravo')
    await rename(join(dir, 'other.txt'), join(dir, 'b.txt'))
    await rejectsWith(read('b.txt'), 'E_SKILL_SOURCE_FAILED')
    expect(new TextDecoder().decode(await read('c.txt'))).toBe('charlie')
  })
})
