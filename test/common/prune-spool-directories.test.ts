import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSpoolStore, pruneSpoolDirectories } from '../../src/common/index.js'

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.UTC(2030, 0, 31)
const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function root(): string {
  const dir = mkdtempSync(join(tmpdir(), 'skillhost-prune-'))
  made.push(dir)
  return dir
}

/** A session folder holding `bytes` bytes, last written `daysAgo` days before NOW. */
async function folder(at: string, name: string, daysAgo: number, bytes = 10): Promise<string> {
  const dir = join(at, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'r_0000000000000000.bin'), Buffer.alloc(bytes))
  const when = new Date(NOW - daysAgo * DAY)
  await utimes(dir, when, when)
  return dir
}

describe('pruneSpoolDirectories (issue 10 item 20)', () => {
  it('removes folders not written within maxAgeMs and keeps the rest', async () => {
    const at = root()
    const old = await folder(at, 'old', 8)
    const fresh = await folder(at, 'fresh', 1)
    const result = await pruneSpoolDirectories(at, { maxAgeMs: 7 * DAY, now: NOW })
    expect(result.removed).toEqual(['old'])
    expect(result.keptBytes).toBe(10)
    expect(existsSync(old)).toBe(false)
    expect(existsSync(fresh)).toBe(true)
  })

  it('then removes the oldest folders until the rest fit in maxTotalBytes', async () => {
    const at = root()
    await folder(at, 'a', 3, 100)
    await folder(at, 'b', 2, 100)
    await folder(at, 'c', 1, 100)
    const result = await pruneSpoolDirectories(at, { maxTotalBytes: 150, now: NOW })
    expect(result.removed).toEqual(['a', 'b'])
    expect(result.keptBytes).toBe(100)
    expect(existsSync(join(at, 'c'))).toBe(true)
  })

  it('skips folders named in keep, follows no symlink, and tolerates a missing root', async () => {
    const at = root()
    await folder(at, 'open-session', 30)
    const outside = root()
    writeFileSync(join(outside, 'precious'), 'x')
    symlinkSync(outside, join(at, 'link'))
    writeFileSync(join(at, 'stray-file'), 'x')
    const result = await pruneSpoolDirectories(at, {
      maxAgeMs: 0,
      maxTotalBytes: 0,
      keep: new Set(['open-session']),
      now: NOW,
    })
    expect(result.removed).toEqual([])
    expect(existsSync(join(at, 'open-session'))).toBe(true)
    expect(existsSync(join(outside, 'precious'))).toBe(true)
    expect(await pruneSpoolDirectories(join(at, 'nope'), { maxAgeMs: 0 })).toEqual({
      removed: [],
      keptBytes: 0,
    })
  })

  it('FileSpoolStore.destroy removes its directory; a later put starts a fresh one', async () => {
    const directory = join(root(), 'session')
    const store = new FileSpoolStore({ directory })
    const first = await store.put('hello')
    await store.destroy()
    expect(existsSync(directory)).toBe(false)
    expect(await store.get(first.id)).toBeUndefined()
    await store.destroy()
    const second = await store.put('again')
    expect(new TextDecoder().decode(await store.get(second.id))).toBe('again')
  })
})
