import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { currentResourceTracker } from '../../../src/common/leak-tracker.js'
import { createSkillManager } from '../../../src/manager/create-skill-manager.js'
import {
  createScriptSandbox,
  type ProvisionBuild,
  type ScriptSandbox,
  scriptInterpreters,
} from '../../../src/tiers/scripts/index.js'
import { memorySource } from '../../helpers/manager-fixtures.js'
import { probePep723 } from '../../helpers/probe-wheel.js'
import { onLinux } from '../../helpers/sandbox.js'
import { cacheWithInstaller } from '../../helpers/shared-installer.js'

// Issue 39 item 2: a build started at load is owned by the loaded skill. Unloading it or
// disposing the manager mid-build kills the build's pip, keeps no half environment and leaves
// nothing for the leak check. pip meets an index that accepts its request and never answers,
// so every dispose below lands while pip runs, whatever the machine's speed.

const PYTHON = scriptInterpreters().python3?.[0]

const PEP723 = probePep723('import skillhost_probe_pkg')

const skill = {
  name: 'warm',
  description: 'A script with requirements.',
  body: '# Warm\n',
  files: { 'p.py': PEP723 },
  scripts: [{ name: 'p', path: 'p.py', description: 'Needs a package.', interpreter: 'python3' }],
}

/** Live processes whose command line names `place` (the build's venv python, pip). */
function processesNaming(place: string): number[] {
  return readdirSync('/proc')
    .filter((f) => /^\d+$/.test(f))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(place)
      } catch {
        return false
      }
    })
    .map(Number)
}

describe.skipIf(!onLinux || PYTHON === undefined)(
  'a build started at load ends with its owner',
  () => {
    let dir: string
    let server: Server
    let index: string
    const sockets = new Set<Socket>()
    // Each request pip makes, in order: resolved by the test that waits for the next one.
    const waiting: (() => void)[] = []
    let requests = 0
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'skillhost-warm-'))
      server = createServer(() => {
        requests++
        for (const wake of waiting.splice(0)) wake()
      })
      server.on('connection', (s) => {
        sockets.add(s)
        s.on('close', () => sockets.delete(s))
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      index = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple`
    })
    afterAll(async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(dir, { recursive: true, force: true })
    })

    async function loadMidBuild(name: string) {
      // With the run's pip installer already in it: the subject is the set's build, not the installer's.
      const cacheDir = await cacheWithInstaller(join(dir, name), PYTHON as string)
      const heard: ProvisionBuild[] = []
      let endedNow: () => void = () => undefined
      const ended = new Promise<void>((resolve) => {
        endedNow = resolve
      })
      const onBuild = (e: ProvisionBuild) => {
        heard.push(e)
        if (e.phase !== 'started') endedNow()
      }
      const sandbox: ScriptSandbox = await createScriptSandbox({
        provision: { cacheDir, index, onBuild },
      })
      const manager = await createSkillManager({
        sources: [memorySource([skill])],
        gate: async () => undefined,
        scripts: sandbox.config,
      })
      const asked = new Promise<void>((resolve) => waiting.push(resolve))
      const before = requests
      const ctx = manager.createTurnContext()
      await manager.load('warm', ctx)
      // No call: the load alone started the build, and its pip is now asking the index.
      await asked
      expect(requests).toBeGreaterThan(before)
      expect(processesNaming(cacheDir).length).toBeGreaterThan(0)
      expect(heard.map((e) => e.phase)).toEqual(['started'])
      return { cacheDir, heard, sandbox, manager, ctx, ended }
    }

    async function expectNothingLeft(cacheDir: string, heard: readonly ProvisionBuild[]) {
      // The pip child was killed and waited for: no process names the cache any more.
      expect(processesNaming(cacheDir)).toEqual([])
      // No environment, no half build, no lock, no build log (a cancel is no failure to explain);
      // only the cache's installer (issue 39 item 2), there before the build started.
      expect(readdirSync(cacheDir)).toEqual(['installer'])
      expect(heard.map((e) => e.phase)).toEqual(['started', 'failed'])
      expect(heard[1]?.failure?.cause).toMatch(/^cancelled/)
      const builds = currentResourceTracker()
        ?.leaks()
        .filter((r) => r.label.startsWith('environment build'))
      expect(builds).toEqual([])
    }

    it('disposing the manager mid-build kills pip and keeps no half environment', async () => {
      const { cacheDir, heard, sandbox, manager } = await loadMidBuild('envs-dispose')
      await manager[Symbol.asyncDispose]()
      await expectNothingLeft(cacheDir, heard)
      await sandbox.dispose()
    }, 180_000)

    it('unloading the skill mid-build kills pip; the manager lives on', async () => {
      const { cacheDir, heard, sandbox, manager, ctx, ended } = await loadMidBuild('envs-unload')
      await manager.unload('warm', ctx)
      // The unload alone ends the build (its teardown runs once the skill's calls drain: none).
      await ended
      expect(processesNaming(cacheDir)).toEqual([])
      expect(readdirSync(cacheDir)).toEqual(['installer'])
      expect(heard.map((e) => e.phase)).toEqual(['started', 'failed'])
      // Loaded again: a fresh build starts (the lock was released, not left stale).
      const again = new Promise<void>((resolve) => waiting.push(resolve))
      await manager.load('warm', ctx)
      await again
      expect(heard.map((e) => e.phase)).toEqual(['started', 'failed', 'started'])
      await manager[Symbol.asyncDispose]()
      await expectNothingLeft(cacheDir, heard.slice(2))
      await sandbox.dispose()
    }, 180_000)

    it('a sandbox disposed before its manager still leaves no build behind', async () => {
      const { cacheDir, heard, sandbox, manager } = await loadMidBuild('envs-order')
      await sandbox.dispose()
      await manager[Symbol.asyncDispose]()
      await expectNothingLeft(cacheDir, heard)
    }, 180_000)
  },
)
