import { type ChildProcess, spawn } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import {
  sweepWarmLeftovers,
  thisWarmOwner,
  WARM_FOLDER_PREFIX,
  warmFolderPrefix,
} from '../../../../src/tiers/scripts/sandbox/warm-leftovers.js'
import { processesWithMarker } from '../../../helpers/proc-scan.js'

// A host SIGKILLed (or crashed) with a warm sandbox leaves its host folder
// (`skillhost-warm-<boot>-<pidns>-<pid>-<start>-XXXXXX`) in the temp dir:
// the folder is removed by the sandbox's `close` handler, which a dead host
// never runs. A later start sweeps such folders (warm-leftovers.ts): only
// this uid's, only when the process the name gives is gone, by descriptor,
// never through a link. Real host processes (test/helpers/warm-host.mjs on
// the built dist/), each with TMPDIR set to this file's own temp dir.

const HELPER = fileURLToPath(new URL('../../../helpers/warm-host.mjs', import.meta.url))
const temp = mkdtempSync(join(tmpdir(), 'skillhost-leftovers-'))
// The sandbox identity (nobody, when the tests run as root) traverses it.
chmodSync(temp, 0o755)
const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  rmSync(temp, { recursive: true, force: true })
})

interface Host {
  readonly child: ChildProcess
  readonly lines: AsyncIterator<string>
}

function host(...args: string[]): Host {
  const child = spawn(process.execPath, [HELPER, ...args], {
    env: { ...process.env, TMPDIR: temp },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  children.push(child)
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  return { child, lines: lines[Symbol.asyncIterator]() }
}

async function line(h: Host): Promise<string> {
  const next = await h.lines.next()
  if (next.done) throw new Error('the host ended without a line')
  return next.value
}

/** A host with one idle warm sandbox; its pid and the warm folders it made. */
async function holdingHost(): Promise<Host & { pid: number; folders: string[] }> {
  const h = host('hold')
  const { pid, folders } = JSON.parse(await line(h)) as { pid: number; folders: string[] }
  expect(folders).toHaveLength(1)
  expect(folders[0]?.startsWith(WARM_FOLDER_PREFIX)).toBe(true)
  return { ...h, pid, folders }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/** SIGKILLs `h` and waits until its warm sandbox (whose argv names the folder) is gone too. */
async function killHost(h: Host & { folders: string[] }): Promise<void> {
  h.child.kill('SIGKILL')
  await exited(h.child)
  await expect.poll(() => processesWithMarker(h.folders[0] as string)).toEqual([])
}

async function runOnce(...args: string[]): Promise<string> {
  const h = host(...args)
  const out = await line(h)
  await exited(h.child)
  return out
}

const inTemp = (name: string) => join(temp, name)

describe.skipIf(process.platform !== 'linux')('warm sandbox folders left by a dead host', () => {
  it('a SIGKILLed host leaves its folder; a later start sweeps it and leaves a live host’s', async () => {
    const dead = await holdingHost()
    const live = await holdingHost()
    const deadFolder = inTemp(dead.folders[0] as string)
    // This process's own, not the sandbox identity's: the sweep knows its own by uid.
    expect(statSync(deadFolder).uid).toBe(process.getuid?.())
    if (process.getuid?.() === 0) expect(statSync(deadFolder).mode & 0o777).toBe(0o711)
    await killHost(dead)
    expect(existsSync(deadFolder)).toBe(true)
    expect(await runOnce('once')).toBe('done')
    expect(existsSync(deadFolder)).toBe(false)
    expect(existsSync(inTemp(live.folders[0] as string))).toBe(true)
    live.child.stdin?.write('call\n')
    expect(await line(live)).toBe('call 0')
    live.child.stdin?.end()
    await exited(live.child)
    expect(existsSync(inTemp(live.folders[0] as string))).toBe(false)
  }, 120_000)

  it('raced: sweeps while live hosts make and remove warm folders never touch theirs (counted)', async () => {
    const live = await holdingHost()
    const dead = await holdingHost()
    await killHost(dead)
    const rounds = 12
    const churner = host('churn', String(rounds))
    const churned = line(churner)
    let finished = false
    void churned.then(() => {
      finished = true
    })
    let sweeps = 0
    // Sweeps that began while a churner's warm folder was there: the race, counted.
    let raced = 0
    const removed: string[] = []
    while (!finished) {
      if (readdirSync(temp).some((n) => n.includes(`-${churner.child.pid}-`))) raced++
      const result = await sweepWarmLeftovers(temp)
      sweeps++
      removed.push(...result.removed)
      // Paced, not timed: the machine is shared.
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(await churned).toBe(`churned ${rounds} 0`)
    const livePids = [live.pid, churner.child.pid]
    expect(removed.filter((n) => livePids.some((pid) => n.includes(`-${pid}-`)))).toEqual([])
    expect(existsSync(inTemp(live.folders[0] as string))).toBe(true)
    expect(existsSync(inTemp(dead.folders[0] as string))).toBe(false)
    expect(raced).toBeGreaterThan(0)
    console.log(
      `warm leftovers race: ${sweeps} sweeps (${raced} with a churner's folder there) beside ${rounds} warm starts`,
    )
    live.child.stdin?.end()
    await exited(live.child)
  }, 180_000)
})

describe.skipIf(process.platform !== 'linux')('ways around the sweep', () => {
  const me = thisWarmOwner()
  if (me === undefined) throw new Error('this process cannot name itself from /proc')
  // This pid with another start time: a process that is gone (its pid reused by this one).
  const gonePrefix = warmFolderPrefix({ ...me, startTime: '1' })
  const canary = mkdtempSync(join(tmpdir(), 'skillhost-leftovers-canary-'))
  writeFileSync(join(canary, 'keep'), 'keep')
  afterAll(() => rmSync(canary, { recursive: true, force: true }))
  const canaryIntact = () => readFileSync(join(canary, 'keep'), 'utf8') === 'keep'

  it('a link with a gone owner’s name is left, its target untouched', async () => {
    const link = inTemp(`${gonePrefix}lnk001`)
    symlinkSync(canary, link)
    const result = await sweepWarmLeftovers(temp)
    expect(result.left).toContain(`${gonePrefix}lnk001`)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(canaryIntact()).toBe(true)
    rmSync(link)
  })

  it.skipIf(process.getuid?.() !== 0)(
    'another uid’s folder with a gone owner’s name is left',
    async () => {
      const other = inTemp(`${gonePrefix}uid001`)
      mkdirSync(other)
      writeFileSync(join(other, 'theirs'), 'theirs')
      chownSync(other, 65534, 65534)
      const result = await sweepWarmLeftovers(temp)
      expect(result.left).toContain(`${gonePrefix}uid001`)
      expect(readFileSync(join(other, 'theirs'), 'utf8')).toBe('theirs')
      rmSync(other, { recursive: true })
    },
  )

  it('a live owner’s, another pid namespace’s and an unlike name are never touched', async () => {
    const names = [
      `${warmFolderPrefix()}live01`,
      `${warmFolderPrefix({ ...me, pidNamespace: '1', startTime: '1' })}nsp001`,
      `${WARM_FOLDER_PREFIX}not-a-warm-folder`,
      // What a host that /proc cannot name makes (warmFolderPrefix without an owner).
      `${WARM_FOLDER_PREFIX}unowned-abc123`,
    ]
    for (const name of names) {
      mkdirSync(inTemp(name))
      writeFileSync(inTemp(`${name}/f`), 'f')
    }
    const result = await sweepWarmLeftovers(temp)
    for (const name of names) {
      expect(result.removed).not.toContain(name)
      expect(result.left).not.toContain(name)
      expect(readFileSync(inTemp(`${name}/f`), 'utf8')).toBe('f')
      rmSync(inTemp(name), { recursive: true })
    }
  })

  it('a gone owner’s folder (a reused pid, an earlier boot) is removed; a link inside is not followed', async () => {
    const reused = `${gonePrefix}own001`
    const rebooted = `${warmFolderPrefix({ ...me, boot: '0'.repeat(32) })}own002`
    for (const name of [reused, rebooted]) {
      mkdirSync(inTemp(`${name}/c/deep`), { recursive: true })
      symlinkSync(join(canary, 'keep'), inTemp(`${name}/c/file-link`))
      symlinkSync(canary, inTemp(`${name}/c/deep/dir-link`))
    }
    writeFileSync(inTemp(`${reused}/notdir`), 'x')
    const plainFile = `${gonePrefix}file01`
    writeFileSync(inTemp(plainFile), 'x')
    const result = await sweepWarmLeftovers(temp)
    expect([...result.removed].sort()).toEqual([reused, rebooted].sort())
    expect(result.left).toEqual([plainFile])
    expect(existsSync(inTemp(reused))).toBe(false)
    expect(existsSync(inTemp(rebooted))).toBe(false)
    expect(canaryIntact()).toBe(true)
    rmSync(inTemp(plainFile))
  })

  it('raced: a gone owner’s folder swapped for a link mid-sweep never reaches the target (counted)', async () => {
    const attempts = 40
    const outcomes = { removed: 0, left: 0, gone: 0 }
    for (let i = 0; i < attempts; i++) {
      const name = `${gonePrefix}${`swp${i}`.padEnd(6, '0')}`
      mkdirSync(inTemp(`${name}/c`), { recursive: true })
      writeFileSync(inTemp(`${name}/c/f`), 'f')
      const sweep = sweepWarmLeftovers(temp)
      // Moved aside and replaced by a link to the canary while the sweep runs, a few turns in.
      for (let turn = 0; turn < i % 8; turn++) await new Promise((r) => setImmediate(r))
      try {
        renameSync(inTemp(name), inTemp(`aside-${i}`))
        symlinkSync(canary, inTemp(name))
      } catch {
        // the sweep was first
      }
      const result = await sweep
      if (result.removed.includes(name)) outcomes.removed++
      else if (result.left.includes(name)) outcomes.left++
      else outcomes.gone++
      expect(canaryIntact()).toBe(true)
      rmSync(inTemp(name), { recursive: true, force: true })
      rmSync(inTemp(`aside-${i}`), { recursive: true, force: true })
    }
    expect(outcomes.removed + outcomes.left + outcomes.gone).toBe(attempts)
    console.log(`warm leftovers swap race: ${JSON.stringify(outcomes)} of ${attempts}`)
  })
})
