import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionWorkspace } from '../../src/tiers/scripts/workspace/session-workspace.js'
import { ATTEMPTS, type Swapper, startSwapper } from '../helpers/swapper.js'

// Each test races the host's workspace operations against a process that
// swaps a parent folder of the path for a symlink to a host folder (what a
// sandboxed script can do to /work at any moment), counts its attempts and
// its wins, and requires 0 wins. docs/security.md lists them.
const linux = process.platform === 'linux'
const base = mkdtempSync(join(tmpdir(), 'skillhost-escape-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const SECRET = 'HOST-SECRET-0600'

/** A host folder a script must never reach, and a workspace with a same-shaped folder `d`. */
function arena(name: string): { host: string; ws: string } {
  const host = join(base, name, 'host')
  const ws = join(base, name, 'ws')
  mkdirSync(host, { recursive: true, mode: 0o700 })
  writeFileSync(join(host, 'secret.txt'), SECRET, { mode: 0o600 })
  writeFileSync(join(host, 'host-only-name.txt'), 'x')
  mkdirSync(join(host, 'victim'))
  writeFileSync(join(host, 'victim', 'keep.txt'), 'keep')
  mkdirSync(join(ws, 'd'), { recursive: true })
  writeFileSync(join(ws, 'd', 'secret.txt'), 'workspace copy')
  chmodSync(join(base, name), 0o700)
  return { host, ws }
}

describe.skipIf(!linux)('workspace races: no host file through a swapped parent', () => {
  const report: string[] = []
  afterAll(() => {
    // The figures docs/security.md quotes: attempts per run, and wins.
    console.log(`[escape] ${report.join('; ')}`)
  })

  async function race(
    name: string,
    attempt: (ws: SessionWorkspace, i: number, host: string) => Promise<boolean>,
  ): Promise<{ wins: number; swaps: number }> {
    const { host, ws: dir } = arena(name)
    const ws = await SessionWorkspace.create({ dir })
    let swapper: Swapper | undefined
    let wins = 0
    let swaps = 0
    try {
      swapper = await startSwapper(base, dir, 'd', host)
      for (let i = 0; i < ATTEMPTS; i++) if (await attempt(ws, i, host)) wins += 1
    } finally {
      swaps = (await swapper?.stop()) ?? 0
      await ws.dispose()
      report.push(`${name}: ${ATTEMPTS} attempts, ${swaps} swaps, ${wins} wins`)
    }
    return { wins, swaps }
  }

  it('workspace get (workspace_read, spooling outputs) never returns a host file', async () => {
    const { wins, swaps } = await race('read', async (ws) => {
      const got = await ws.get('d/secret.txt').catch(() => undefined)
      return got !== undefined && new TextDecoder().decode(got.bytes) === SECRET
    })
    expect(swaps).toBeGreaterThan(0)
    expect(swaps).toBeGreaterThan(0)
    expect(wins).toBe(0)
  })

  it('workspace put (workspace_write) never creates a file in a host folder', async () => {
    const { wins, swaps } = await race('write', async (ws, i, host) => {
      await ws.put(`d/planted-${i}.txt`, 'x').catch(() => undefined)
      return existsSync(join(host, `planted-${i}.txt`))
    })
    expect(swaps).toBeGreaterThan(0)
    expect(wins).toBe(0)
  })

  it('workspace remove never deletes a host tree', async () => {
    const { wins, swaps } = await race('remove', async (ws, _i, host) => {
      await ws.put('d/victim/keep.txt', 'ws').catch(() => undefined)
      await ws.remove('d/victim').catch(() => undefined)
      const lost = !existsSync(join(host, 'victim', 'keep.txt'))
      if (lost) {
        mkdirSync(join(host, 'victim'), { recursive: true })
        writeFileSync(join(host, 'victim', 'keep.txt'), 'keep')
      }
      return lost
    })
    expect(swaps).toBeGreaterThan(0)
    expect(wins).toBe(0)
  })

  it('workspace list (and the cap walk and change report) never lists a host folder', async () => {
    const { wins, swaps } = await race('list', async (ws) => {
      const entries = await ws.list().catch(() => [])
      return entries.some((e) => e.path.includes('host-only-name') || e.path.includes('victim'))
    })
    expect(swaps).toBeGreaterThan(0)
    expect(wins).toBe(0)
  })

  it('a FIFO named like an output is refused at once, never opened blocking', async () => {
    const { ws: dir } = arena('fifo')
    execFileSync('mkfifo', [join(dir, 'out.txt')])
    const ws = await SessionWorkspace.create({ dir })
    try {
      // More concurrent reads than the thread pool has threads: a blocking open would stall them all.
      const reads = await Promise.allSettled(Array.from({ length: 8 }, () => ws.get('out.txt')))
      for (const r of reads) {
        expect(r.status).toBe('rejected')
        expect((r as PromiseRejectedResult).reason.message).toMatch(/FIFO/)
      }
      await expect(ws.put('out.txt', 'x')).rejects.toThrow(/FIFO/)
      expect((await ws.list()).find((e) => e.path === 'out.txt')?.kind).toBe('fifo')
    } finally {
      await ws.dispose()
    }
  })

  it('counts .git and node_modules against the cap, and an unmeasurable tree as full', async () => {
    const { ws: dir } = arena('cap')
    mkdirSync(join(dir, 'node_modules', 'pkg'), { recursive: true })
    writeFileSync(join(dir, 'node_modules', 'pkg', 'blob'), Buffer.alloc(6000))
    mkdirSync(join(dir, '.git'))
    writeFileSync(join(dir, '.git', 'blob'), Buffer.alloc(3000))
    const ws = await SessionWorkspace.create({ dir, maxBytes: 10_000 })
    try {
      await expect(ws.put('more.bin', new Uint8Array(2000))).rejects.toMatchObject({
        code: 'E_SKILL_WORKSPACE_FULL',
      })
    } finally {
      await ws.dispose()
    }
    const few = await SessionWorkspace.create({ dir, maxEntries: 3 })
    try {
      await expect(few.put('one.txt', 'x')).rejects.toMatchObject({
        code: 'E_SKILL_WORKSPACE_FULL',
        message: expect.stringMatching(/maxEntries/),
      })
    } finally {
      await few.dispose()
    }
  })

  it('refuses writes and removals of version-control state', async () => {
    const { ws: dir } = arena('vcs')
    mkdirSync(join(dir, '.git'))
    writeFileSync(join(dir, '.git', 'config'), '[core]\n')
    const ws = await SessionWorkspace.create({ dir })
    try {
      for (const path of ['.git/config', '.git/hooks/pre-commit', 'sub/.hg/hgrc', '.svn']) {
        await expect(ws.put(path, 'x')).rejects.toMatchObject({
          code: 'E_SKILL_SOURCE_PATH_REJECTED',
        })
      }
      await expect(ws.remove('.git')).rejects.toMatchObject({
        code: 'E_SKILL_SOURCE_PATH_REJECTED',
      })
      expect(readdirSync(join(dir, '.git'))).toEqual(['config'])
    } finally {
      await ws.dispose()
    }
  })
})
