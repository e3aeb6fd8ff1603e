import { execFileSync } from 'node:child_process'
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { personText, SkillHostError } from '../../src/common/errors.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { readSkillLock } from '../../src/sources/lock/read-skill-lock.js'
import {
  formatSkillLock,
  MAX_SKILL_LOCK_BYTES,
  parseSkillLock,
  type SkillLock,
} from '../../src/sources/lock/skill-lock.js'
import { rejectsWith } from '../helpers/error-code.js'
import { makeTree, removeTree } from '../helpers/skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

const D1 = `sha256-${'A'.repeat(43)}=`
const D2 = `sha256-${'b'.repeat(42)}+=`

const lockText = (skills: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ lockfileVersion: 1, skills, ...extra })

/** The message of the E_INVALID_SKILLS_CONFIG that parsing `text` throws. */
function refusal(text: string | Uint8Array): string {
  return rejectsWith(() => parseSkillLock(text), 'E_INVALID_SKILLS_CONFIG').message
}

describe('lockfile format', () => {
  it('round-trips: format then parse gives the same ids, digests and sources, ids sorted', () => {
    const lock: SkillLock = {
      lockfileVersion: 1,
      skills: new Map([
        ['zeta', { digest: D1, source: 'skills/zeta' }],
        ['alpha', { digest: D2, source: '~/.claude/skills/alpha' }],
      ]),
    }
    const text = formatSkillLock(lock)
    expect(text.endsWith('}\n')).toBe(true)
    expect(Object.keys(JSON.parse(text).skills)).toEqual(['alpha', 'zeta'])
    const back = parseSkillLock(text)
    expect(back.lockfileVersion).toBe(1)
    expect([...back.skills]).toEqual([...lock.skills].sort(([a], [b]) => (a < b ? -1 : 1)))
    expect(formatSkillLock(back)).toBe(text)
  })

  it('keeps __proto__ and constructor as plain ids, polluting nothing', () => {
    const text = `{"lockfileVersion":1,"skills":{"__proto__":{"digest":"${D1}","source":"p"},"constructor":{"digest":"${D2}","source":"c"}}}`
    const lock = parseSkillLock(text)
    expect(lock.skills.get('__proto__')).toEqual({ digest: D1, source: 'p' })
    expect(lock.skills.get('constructor')?.digest).toBe(D2)
    expect(({} as Record<string, unknown>).digest).toBeUndefined()
    // Written back, __proto__ is still an own key of the skills object.
    expect(Object.keys(JSON.parse(formatSkillLock(lock)).skills)).toEqual([
      '__proto__',
      'constructor',
    ])
  })

  it('refuses bad JSON, wrong shapes and bad digests with typed errors naming the problem', () => {
    expect(refusal('{"lockfileVersion":1,')).toMatch(/not JSON/)
    expect(refusal('[]')).toMatch(/top level is not an object/)
    expect(refusal('null')).toMatch(/top level/)
    expect(refusal(lockText({}, { lockfileVersion: 3 }))).toMatch(/lockfileVersion must be 1 or 2/)
    expect(refusal(JSON.stringify({ skills: {} }))).toMatch(/lockfileVersion/)
    expect(refusal(lockText([]))).toMatch(/skills is not an object/)
    expect(refusal(lockText({}, { extra: true }))).toMatch(/unknown key "extra"/)
    expect(
      refusal(lockText({}).replace('{"lockfileVersion"', '{"__proto__":{},"lockfileVersion"')),
    ).toMatch(/unknown key "__proto__"/)
    expect(refusal(lockText({ s: 'sha256-x' }))).toMatch(/skill "s" is not an object/)
    expect(refusal(lockText({ s: { digest: D1 } }))).toMatch(/source/)
    expect(refusal(lockText({ s: { digest: D1, source: 'x', more: 1 } }))).toMatch(/unknown key/)
    for (const digest of [
      'sha256-',
      `sha512-${'A'.repeat(43)}=`,
      `sha256-${'A'.repeat(44)}`,
      `sha256-${'A'.repeat(41)}-_=`,
      ` ${D1}`,
      `${D1}\n`,
      42,
      null,
    ])
      expect(refusal(lockText({ s: { digest, source: 's' } }))).toMatch(/no valid digest/)
    expect(refusal(lockText({ '': { digest: D1, source: '' } }))).toMatch(/skill id/)
    expect(refusal(lockText({ 'a\u001b[2J': { digest: D1, source: '' } }))).toMatch(/control/)
    expect(refusal(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatch(/not UTF-8/)
  })

  it('version 2 records each file in path order; bad file lists are refused', () => {
    const F = (path: string, c = 'a') => ({ path, digest: `sha256:${c.repeat(64)}`, size: 3 })
    const v2 = (files: unknown) =>
      JSON.stringify({ lockfileVersion: 2, skills: { s: { digest: D1, source: 's', files } } })
    const lock = parseSkillLock(v2([F('SKILL.md'), F('a/b.md', 'b')]))
    expect(lock.lockfileVersion).toBe(2)
    expect(lock.skills.get('s')?.files).toEqual([F('SKILL.md'), F('a/b.md', 'b')])
    expect(parseSkillLock(formatSkillLock(lock))).toEqual(lock)
    expect(refusal(v2(undefined))).toMatch(/no files list/)
    expect(refusal(v2([F('b'), F('a')]))).toMatch(/out of path order or twice/)
    expect(refusal(v2([F('a'), F('a')]))).toMatch(/out of path order or twice/)
    expect(refusal(v2([{ ...F('a'), digest: `sha256:${'A'.repeat(64)}` }]))).toMatch(/hex/)
    expect(refusal(v2([{ ...F('a'), digest: D1 }]))).toMatch(/hex/)
    expect(refusal(v2([{ ...F('a'), size: -1 }]))).toMatch(/size/)
    expect(refusal(v2([{ ...F('a'), size: 1.5 }]))).toMatch(/size/)
    expect(refusal(v2([F('')]))).toMatch(/path/)
    expect(refusal(v2([F('a\u0000b')]))).toMatch(/control/)
    expect(refusal(v2([{ ...F('a'), mode: 1 }]))).toMatch(/unknown key "mode"/)
    expect(refusal(v2('SKILL.md'))).toMatch(/no files list/)
    // Version 1 has no files key.
    expect(refusal(lockText({ s: { digest: D1, source: 's', files: [] } }))).toMatch(
      /unknown key "files"/,
    )
  })

  it('refuses an oversized text before parsing it', () => {
    const huge = ' '.repeat(MAX_SKILL_LOCK_BYTES + 1)
    const err = rejectsWith(() => parseSkillLock(huge), 'E_INVALID_SKILLS_CONFIG')
    expect(err.message).toMatch(/limit is/)
  })

  it('parses deeply nested hostile JSON into a typed error, never a crash', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    expect(refusal(deep)).toMatch(/top level is not an object/)
    const deepSkill = lockText({ s: { digest: D1, source: JSON.parse('[[[[[]]]]]') } })
    expect(refusal(deepSkill)).toMatch(/source/)
  })

  it('a source given an invalid lock value fails at construction', () => {
    const err = rejectsWith(
      () => new FileSystemSkillSource({ roots: '.', lock: { lockfileVersion: 1 } as never }),
      'E_INVALID_SKILLS_CONFIG',
    )
    expect(SkillHostError.isInstance(err)).toBe(true)
    // The JSON value itself is accepted, and so is a parsed lock.
    const value = JSON.parse(lockText({ s: { digest: D1, source: 's' } }))
    expect(
      new FileSystemSkillSource({ roots: '.', lock: value }).lock?.skills.get('s')?.digest,
    ).toBe(D1)
  })
})

describe('lockfile environments (issue 23: pinned python environments)', () => {
  const env = {
    requirements: ['pypdf>=4'],
    packages: [{ name: 'pypdf', version: '4.2.0', sha256: 'a'.repeat(64) }],
  }
  it('an entry without environments reads as before; one with them round-trips', () => {
    expect(parseSkillLock(lockText({ a: { digest: D1, source: 's' } })).skills.get('a')).toEqual({
      digest: D1,
      source: 's',
    })
    const lock = parseSkillLock(lockText({ a: { digest: D1, source: 's', environments: [env] } }))
    expect(lock.skills.get('a')?.environments).toEqual([env])
    expect(parseSkillLock(formatSkillLock(lock)).skills.get('a')?.environments).toEqual([env])
  })

  it('refuses malformed environments naming where', () => {
    const bad = (environments: unknown) =>
      refusal(lockText({ a: { digest: D1, source: 's', environments } }))
    expect(bad({})).toMatch(/environments is not a list/)
    expect(bad([{ ...env, extra: 1 }])).toMatch(/environments\[0\] is not/)
    expect(bad([{ ...env, packages: [{ name: 'x', version: '1', sha256: 'nothex' }] }])).toMatch(
      /environments\[0\]\.packages\[0\]/,
    )
    expect(bad([{ ...env, requirements: ['a\nb'] }])).toMatch(/requirements is not/)
  })
})

describe('readSkillLock', () => {
  it('reads a lockfile, and refuses a missing, huge, non-regular or malformed one with typed errors', async () => {
    const dir = await makeTree({})
    roots.push(dir)
    const good = join(dir, 'skills.lock.json')
    await writeFile(good, lockText({ s: { digest: D1, source: 'skills/s' } }))
    expect((await readSkillLock(good)).skills.get('s')?.source).toBe('skills/s')
    // Through a symlink: a deployer's config file may be one.
    await symlink(good, join(dir, 'link.json'))
    expect((await readSkillLock(join(dir, 'link.json'))).skills.size).toBe(1)

    const missing = await rejectsWith(
      readSkillLock(join(dir, 'none.json')),
      'E_INVALID_SKILLS_CONFIG',
    )
    expect(missing.message).toMatch(/ENOENT/)
    // The host path is the person's to read, never in the model-safe message.
    expect(missing.message).not.toContain(dir)
    expect(personText(missing)).toContain(dir)
    const big = join(dir, 'big.json')
    await writeFile(big, '')
    await truncate(big, MAX_SKILL_LOCK_BYTES + 1)
    expect((await rejectsWith(readSkillLock(big), 'E_INVALID_SKILLS_CONFIG')).message).toMatch(
      /limit/,
    )
    await mkdir(join(dir, 'folder.json'))
    await rejectsWith(readSkillLock(join(dir, 'folder.json')), 'E_INVALID_SKILLS_CONFIG')
    execFileSync('mkfifo', [join(dir, 'fifo.json')])
    const fifo = await rejectsWith(readSkillLock(join(dir, 'fifo.json')), 'E_INVALID_SKILLS_CONFIG')
    expect(fifo.message).toMatch(/not a regular file/)
    await writeFile(
      join(dir, 'bad.json'),
      '{"lockfileVersion": 1, "skills": {"s": {"digest": "md5-x", "source": ""}}}',
    )
    await rejectsWith(readSkillLock(join(dir, 'bad.json')), 'E_INVALID_SKILLS_CONFIG')
  })
})
