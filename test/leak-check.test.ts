import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSkillMcpServer } from '../src/adapters/mcp/index.js'
import { FileSpoolStore } from '../src/common/file-spool-store.js'
import {
  describeLeaks,
  type ResourceKind,
  ResourceTracker,
  setResourceTracker,
  type TrackedResource,
  type Untrack,
} from '../src/common/leak-tracker.js'
import { createSkillManager } from '../src/manager/create-skill-manager.js'
import { FolderWatcher } from '../src/sources/discovery/folder-watcher.js'
import { createQuickJsGuest } from '../src/tiers/isolated/index.js'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createScriptSandbox,
  SessionWorkspace,
} from '../src/tiers/scripts/index.js'
import { memorySource, reportSkill } from './manager/fixtures.js'
import { files, onLinux, SYSTEM_READ_PATHS } from './sandbox/helpers.js'

/** A tracker that also says when a resource of a given kind is made (no polling). */
class WatchingTracker extends ResourceTracker {
  readonly #waiting = new Map<ResourceKind, () => void>()

  override add(resource: TrackedResource): Untrack {
    const untrack = super.add(resource)
    this.#waiting.get(resource.kind)?.()
    return untrack
  }

  made(kind: ResourceKind): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(kind, resolve))
  }
}

const ALL_KINDS: readonly ResourceKind[] = [
  'manager',
  'mcp-session',
  'worker',
  'process',
  'watcher',
  'session-workspace',
  'skill-copy',
  'scratch',
  'sandbox-dir',
  'spool',
]

let restore: ResourceTracker | undefined
const temps: string[] = []
afterEach(async () => {
  setResourceTracker(restore)
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'skillhost-leak-'))
  temps.push(dir)
  // The sandbox runs as nobody when the tests run as root: it must traverse skill copies.
  await chmod(dir, 0o755)
  return dir
}

describe('the leak check', () => {
  // Makes one real resource of each kind under a private tracker, checks the
  // tracker names every one, then releases them and checks it names none:
  // both the creation and the release of each kind are wired.
  it.skipIf(!onLinux)(
    'names one leaked resource of each kind, and none once each is released',
    async () => {
      const tracker = new WatchingTracker()
      restore = setResourceTracker(tracker)

      const manager = await createSkillManager({
        sources: [memorySource([reportSkill()])],
        gate: async () => undefined,
      })
      const session = createSkillMcpServer({
        manager,
        serverInfo: { name: 'leaky', version: '1' },
      })

      const pool = createQuickJsGuest({ poolSize: 1 })
      await pool.warm()

      const handle = await createBubblewrapHandle()
      const spawned = tracker.made('process')
      const running = handle
        .run({
          argv: ['/bin/sleep', '600'],
          cwd: '/',
          policy: {
            filesystem: {
              allowRead: SYSTEM_READ_PATHS,
              denyRead: [],
              allowWrite: [],
              denyWrite: [],
            },
            network: { allowedDomains: [] },
          },
          env: {},
          timeoutMs: 600_000,
          maxOutputBytes: 1_024,
        })
        .catch((err: unknown) => err)
      await spawned

      const watched = await temp()
      const watcher = new FolderWatcher({ maxFolders: 4, onChange: () => undefined })
      expect(watcher.watch(watched)).toBe(true)

      const sessionBase = await temp()
      const workspace = await SessionWorkspace.create({
        privateDir: () => mkdtemp(join(sessionBase, 'session-')),
      })

      const copies = await createDirectoryWorkspace({ baseDir: join(await temp(), 'ws') })
      const root = await copies.materialize(
        { id: 'reports', version: '1' },
        files({ 'a.txt': 'a' }),
      )
      const scratch = await copies.createScratch()

      const sandbox = await createScriptSandbox()

      const spool = new FileSpoolStore({ directory: join(await temp(), 'spool') })
      await spool.put('kept')

      const leaks = await tracker.settle()
      expect([...new Set(leaks.map((r) => r.kind))].sort()).toEqual([...ALL_KINDS].sort())
      const labels = new Map(leaks.map((r) => [r.kind, r.label]))
      expect(labels.get('mcp-session')).toBe('leaky')
      expect(labels.get('process')).toBe('bwrap: /bin/sleep 600')
      expect(labels.get('watcher')).toBe(watched)
      expect(labels.get('session-workspace')).toBe(workspace.path)
      expect(labels.get('skill-copy')).toBe(root)
      expect(labels.get('scratch')).toBe(scratch)
      expect(labels.get('sandbox-dir')).toBe(sandbox.baseDir)
      expect(labels.get('spool')).toBe(spool.directory)
      const report = describeLeaks(leaks)
      expect(report).toContain(`${leaks.length} resource(s) outlived the test file`)
      // The stack leads back to the line of this file that made it.
      expect(report).toMatch(
        /- manager 'skill manager', made\n(?: +at .*\n)*? +at .*leak-check\.test\.ts/,
      )

      await session.close()
      await manager.dispose()
      await pool.dispose()
      await handle.dispose?.()
      watcher.close()
      await workspace.dispose()
      await copies.disposeScratch(scratch)
      await copies.dispose(root)
      await sandbox.dispose()
      await spool.destroy()
      // The killed process is released when it closes; settle waits for that.
      expect(await tracker.settle()).toEqual([])
      expect(await running).toMatchObject({ exitCode: null, timedOut: false })
    },
  )
})
