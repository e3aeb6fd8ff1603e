import { rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { scannedFilePath, scanSkillFolder } from '../../src/sources/scan-skill-folder.js'
import { asyncSkillFs } from '../../src/sources/skill-fs.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import { rejectsWith } from '../helpers/error-code.js'
import { makeTree, removeTree, skillMd } from './skill-tree.js'

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
    const read = (rel: string) => {
      const f = scan.files.get(rel)!
      return asyncSkillFs.readCapped(scannedFilePath(scan, rel, f), 1024, rel, f)
    }
    await rm(join(dir, 'a.txt'))
    await symlink(join(root, 'secret.txt'), join(dir, 'a.txt'))
    await rejectsWith(read('a.txt'), 'E_SKILL_SOURCE_FAILED')
    await writeFile(join(dir, 'other.txt'), 'bravo')
    await rename(join(dir, 'other.txt'), join(dir, 'b.txt'))
    await rejectsWith(read('b.txt'), 'E_SKILL_SOURCE_FAILED')
    expect(new TextDecoder().decode((await read('c.txt')).bytes)).toBe('charlie')
  })
})
