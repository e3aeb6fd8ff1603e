import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { releaseBuildLock, takeBuildLock } from '../../../src/tiers/scripts/deps/build-lock.js'

const dir = mkdtempSync(join(tmpdir(), 'skillhost-build-lock-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  return Number(execFileSync('sh', ['-c', 'sh -c "echo \\$\\$" & wait'], { encoding: 'utf8' }))
}

const owner = (lock: string) => JSON.parse(readFileSync(join(lock, 'owner.json'), 'utf8'))

describe('takeBuildLock', () => {
  it('takes a free lock, naming this process; a live owner holds it', async () => {
    const lock = join(dir, 'free.lock')
    expect(await takeBuildLock(lock)).toBe('taken')
    expect(owner(lock)).toEqual({ pid: process.pid, host: hostname() })
    expect(await takeBuildLock(lock)).toBe('held')
    await releaseBuildLock(lock)
    expect(existsSync(lock)).toBe(false)
  })

  it('takes over a lock whose owner on this host is gone (a builder killed mid-build)', async () => {
    const lock = join(dir, 'stale.lock')
    mkdirSync(lock)
    const pid = deadPid()
    expect(() => process.kill(pid, 0)).toThrow()
    writeFileSync(join(lock, 'owner.json'), JSON.stringify({ pid, host: hostname() }))
    expect(await takeBuildLock(lock)).toBe('taken')
    expect(owner(lock).pid).toBe(process.pid)
  })

  it('holds what it cannot judge: another host’s lock, a lock still being taken, a malformed owner', async () => {
    const other = join(dir, 'other-host.lock')
    mkdirSync(other)
    writeFileSync(
      join(other, 'owner.json'),
      JSON.stringify({ pid: deadPid(), host: `not-${hostname()}` }),
    )
    expect(await takeBuildLock(other)).toBe('held')
    const taking = join(dir, 'taking.lock')
    mkdirSync(taking)
    expect(await takeBuildLock(taking)).toBe('held')
    const malformed = join(dir, 'malformed.lock')
    mkdirSync(malformed)
    writeFileSync(join(malformed, 'owner.json'), '{"pid": "1; rm -rf /", "host": 7}')
    expect(await takeBuildLock(malformed)).toBe('held')
  })

  it('racing takers of one stale lock never fail: at least one takes it each round (raced, counted)', async () => {
    // Each taker judges the stale lock, removes it and makes its own; a second judge can
    // remove the first's fresh lock before the first writes its owner file there.
    const ROUNDS = 150
    const TAKERS = 4
    let contested = 0
    let doubled = 0
    for (let round = 0; round < ROUNDS; round++) {
      const lock = join(dir, `raced-${round}.lock`)
      mkdirSync(lock)
      writeFileSync(join(lock, 'owner.json'), JSON.stringify({ pid: deadPid(), host: hostname() }))
      const results = await Promise.all(Array.from({ length: TAKERS }, () => takeBuildLock(lock)))
      const taken = results.filter((r) => r === 'taken').length
      expect(taken, `round ${round}: ${results.join(' ')}`).toBeGreaterThan(0)
      if (taken < TAKERS) contested++
      if (taken > 1) doubled++
      await releaseBuildLock(lock)
    }
    // The takers did race: most rounds had losers (a second build is allowed, never a failure).
    expect(contested, `${contested} contested, ${doubled} taken twice or more`).toBeGreaterThan(0)
  })
})
