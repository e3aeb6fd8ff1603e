import { stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { lockSkills } from '../../src/sources/lock/lock-skills.js'
import type { SkillLock } from '../../src/sources/lock/skill-lock.js'
import { codeOf, rejectsWith } from '../helpers/error-code.js'
import { discover, makeTree, removeTree, skillMd, text, writeTree } from '../helpers/skill-tree.js'

const roots: string[] = []
/** A whole-second time, set exactly by utimes (a Date from a stat would lose the nanoseconds). */
const T0 = new Date('2020-01-01T00:00:00Z')
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

async function skillsRoot(): Promise<string> {
  const root = await makeTree({
    'alpha/SKILL.md': skillMd('alpha'),
    'alpha/notes.md': 'alpha notes',
    'beta/SKILL.md': skillMd('beta'),
    'beta/data/table.csv': 'a,b\n1,2\n',
  })
  roots.push(root)
  return root
}

/** Pins what `root` holds now, through a source without a lock. */
const pin = (root: string): Promise<SkillLock> =>
  lockSkills(new FileSystemSkillSource({ roots: root }))

async function managerOver(source: FileSystemSkillSource) {
  return createSkillManager({ sources: [source], gate: async () => {} })
}

describe('FileSystemSkillSource({ lock })', () => {
  it('serves pinned skills as pinned and leaves an unpinned one out with E_SKILL_NOT_PINNED', async () => {
    const root = await skillsRoot()
    const lock = await pin(root)
    expect([...lock.skills.keys()].sort()).toEqual(['alpha', 'beta'])
    await writeTree(root, { 'gamma/SKILL.md': skillMd('gamma') })
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root, lock }))
    expect(skills.map((s) => [s.id, s.pin?.state])).toEqual([
      ['alpha', 'pinned'],
      ['beta', 'pinned'],
    ])
    expect(skills[0]?.pin?.digest).toBe(lock.skills.get('alpha')?.digest)
    expect(problems).toEqual([
      expect.objectContaining({ id: 'gamma', code: 'E_SKILL_NOT_PINNED', severity: 'error' }),
    ])
    expect(problems[0]?.message).toMatch(/not in the lockfile/)
  })

  it('lists a changed skill as changed-since-pinned with its new digest; it refuses to load until pinned again', async () => {
    const root = await skillsRoot()
    const lock = await pin(root)
    await writeFile(join(root, 'alpha/notes.md'), 'alpha notes, edited')
    const unlocked = new FileSystemSkillSource({ roots: root })
    const [alphaNow] = (await discover(unlocked)).skills
    const newDigest = await unlocked.digest(alphaNow!)
    expect(newDigest).not.toBe(lock.skills.get('alpha')?.digest)

    const source = new FileSystemSkillSource({ roots: root, lock })
    const { skills, problems } = await discover(source)
    expect(skills.find((s) => s.id === 'alpha')?.pin).toEqual({
      state: 'changed-since-pinned',
      digest: newDigest,
      pinnedDigest: lock.skills.get('alpha')?.digest,
    })
    expect(problems).toEqual([
      expect.objectContaining({ id: 'alpha', code: 'E_SKILL_NOT_PINNED', severity: 'warning' }),
    ])

    await using manager = await managerOver(source)
    expect(manager.catalog().entries.find((e) => e.id === 'alpha')?.pin?.state).toBe(
      'changed-since-pinned',
    )
    const ctx = manager.createTurnContext()
    const err = await rejectsWith(manager.load('alpha', ctx), 'E_SKILL_NOT_PINNED')
    expect(err.message).toContain(newDigest)
    expect(err.message).not.toContain(root)
    expect((await manager.load('beta', ctx)).id).toBe('beta')
    // The model sees the pin of a skill that will not load, and no pin noise on the others.
    const list = forgeSkillTools(manager).find((t) => t.name === 'list_skills')!
    const page = JSON.parse(String(await list.execute({}, ctx)))
    const rows = Object.fromEntries(page.skills.map((s: { id: string }) => [s.id, s]))
    expect(rows.alpha.pin).toEqual({
      state: 'changed-since-pinned',
      digest: newDigest,
      pinnedDigest: lock.skills.get('alpha')?.digest,
    })
    expect(rows.beta.pin).toBeUndefined()

    // Pinned again, it loads.
    const repinned = new FileSystemSkillSource({ roots: root, lock: await pin(root) })
    await using again = await managerOver(repinned)
    expect(again.catalog().entries.find((e) => e.id === 'alpha')?.pin?.state).toBe('pinned')
    const loaded = await again.load('alpha', again.createTurnContext())
    expect(loaded.id).toBe('alpha')
    expect(await text(await repinned.read(loaded, 'notes.md'))).toBe('alpha notes, edited')
  })

  it('refuses a skill whose content changed between discovery and load', async () => {
    const root = await skillsRoot()
    const source = new FileSystemSkillSource({ roots: root, lock: await pin(root) })
    await using manager = await managerOver(source)
    expect(manager.catalog().entries.every((e) => e.pin?.state === 'pinned')).toBe(true)
    const [alpha] = (await discover(source)).skills
    await writeFile(join(root, 'alpha/notes.md'), 'swapped after discovery')
    const ctx = manager.createTurnContext()
    await rejectsWith(manager.load('alpha', ctx), 'E_SKILL_NOT_PINNED')
    // Every read re-checks, not only the load.
    await rejectsWith(source.read(alpha!, 'notes.md'), 'E_SKILL_NOT_PINNED')
    await rejectsWith(source.snapshot(alpha!), 'E_SKILL_NOT_PINNED')
    // Put back byte for byte, it is the pinned content again: the source calls the old ref
    // stale, and the manager rediscovers and loads the (pinned) current version.
    await writeFile(join(root, 'alpha/notes.md'), 'alpha notes')
    // A distinct mtime: two writes within one tick of the filesystem clock may share one.
    await utimes(join(root, 'alpha/notes.md'), T0, T0)
    expect(await codeOf(source.read(alpha!, 'notes.md'))).toBe('E_SKILL_NOT_FOUND')
    expect((await manager.load('alpha', ctx)).id).toBe('alpha')
  })

  it('refuses a skill that gained a file, even an empty one, after it was pinned', async () => {
    const root = await skillsRoot()
    const lock = await pin(root)
    await writeFile(join(root, 'beta/extra.sh'), '')
    await using manager = await managerOver(new FileSystemSkillSource({ roots: root, lock }))
    expect(await codeOf(manager.load('beta', manager.createTurnContext()))).toBe(
      'E_SKILL_NOT_PINNED',
    )
  })

  it('keeps a digest for its scan identity only: an unchanged folder is not re-read, a touched one is', async () => {
    const root = await skillsRoot()
    const file = join(root, 'alpha/notes.md')
    await utimes(file, T0, T0)
    const source = new FileSystemSkillSource({ roots: root, lock: await pin(root) })
    expect((await discover(source)).skills.map((s) => s.pin?.state)).toEqual(['pinned', 'pinned'])
    expect((await discover(source)).skills[0]?.pin?.state).toBe('pinned')
    // Touched only: a new identity, so the file is read again, and its bytes are still pinned.
    await utimes(file, T0, new Date(T0.getTime() + 5_000))
    expect((await discover(source)).skills[0]?.pin?.state).toBe('pinned')
    // Rewritten in place with the same size and its mtime put back: same inode, size and
    // mtime, but the ctime moved (utimes cannot restore it), so the change is seen.
    const ino = (await stat(file)).ino
    await writeFile(file, 'ALPHA NOTES')
    await utimes(file, T0, new Date(T0.getTime() + 5_000))
    expect((await stat(file)).ino).toBe(ino)
    expect((await discover(source)).skills[0]?.pin?.state).toBe('changed-since-pinned')
  })

  it('leaves a deployer overlay out of the digest: the same lock holds with or without --overlays', async () => {
    const root = await skillsRoot()
    const overlays = await makeTree({
      'alpha/skillhost.yaml': 'scripts: []\n',
    })
    roots.push(overlays)
    const lock = await pin(root)
    const withOverlay = new FileSystemSkillSource({ roots: root, overlays, lock })
    const { skills } = await discover(withOverlay)
    expect(skills.map((s) => s.pin?.state)).toEqual(['pinned', 'pinned'])
    expect(await withOverlay.digest(skills[0]!)).toBe(lock.skills.get('alpha')?.digest)
  })

  it('checks with either discovery driver alike', async () => {
    const root = await skillsRoot()
    const lock = await pin(root)
    await writeFile(join(root, 'beta/data/table.csv'), 'a,b\n1,3\n')
    const states = async (discoveryIo: 'sync' | 'async') =>
      (await discover(new FileSystemSkillSource({ roots: root, lock, discoveryIo }))).skills.map(
        (s) => [s.id, s.pin?.state, s.pin?.digest],
      )
    const sync = await states('sync')
    expect(sync.map(([id, state]) => [id, state])).toEqual([
      ['alpha', 'pinned'],
      ['beta', 'changed-since-pinned'],
    ])
    expect(await states('async')).toEqual(sync)
  })
})
