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
  withResourceOwner,
} from '../src/common/leak-tracker.js'
import { createSkillManager } from '../src/manager/create-skill-manager.js'
import { FolderWatcher } from '../src/sources/discovery/folder-watcher.js'
import { FileSystemSkillSource } from '../src/sources/file-system-skill-source.js'
import { createQuickJsGuest } from '../src/tiers/isolated/index.js'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createScriptSandbox,
  SessionWorkspace,
} from '../src/tiers/scripts/index.js'
import { memorySource, reportSkill } from './helpers/manager-fixtures.js'
import { asyncOwnerScope } from './helpers/owner-scope.js'
import { files, onLinux, SYSTEM_READ_PATHS } from './helpers/sandbox.js'

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
        /- manager 'skill manager', no owner, made\n(?: +at .*\n)*? +at .*leak-check\.test\.ts/,
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

  // As vscode's tracker has setParent: a leak names who made it (the skill
  // whose load or call made it, the manager that loaded the skill, the MCP
  // session that took the manager on) and whether that owner was released,
  // in which case it is the one that forgot.
  it.skipIf(!onLinux)(
    'names the owner of a leaked resource, up to the root, and whether each owner was released',
    async () => {
      const tracker = new ResourceTracker(asyncOwnerScope())
      restore = setResourceTracker(tracker)
      const leakOf = (leaks: readonly TrackedResource[], kind: ResourceKind) => {
        const found = leaks.find((r) => r.kind === kind)
        if (found === undefined) throw new Error(`no ${kind} leaked`)
        return found
      }
      const sandbox = await createScriptSandbox()
      const manager = await createSkillManager({
        sources: [
          new FileSystemSkillSource({ roots: [join(import.meta.dirname, '../examples/skills')] }),
        ],
        gate: async () => undefined,
        scripts: sandbox.config,
      })
      const loaded = await manager.load('word-count', manager.createTurnContext())

      // A manager left undisposed: its skill's copy names the skill, then the manager, leaked too.
      let leaks = await tracker.settle()
      const copy = leakOf(leaks, 'skill-copy')
      expect(tracker.ownersOf(copy)).toEqual([
        `skill 'word-count' ${loaded.version}`,
        "manager 'skill manager' (leaked too)",
      ])
      expect(tracker.ownersOf(leakOf(leaks, 'manager'))).toEqual([])
      expect(tracker.ownersOf(leakOf(leaks, 'sandbox-dir'))).toEqual([])
      const report = describeLeaks(leaks, tracker)
      expect(report).toContain(
        `- skill-copy '${copy.label}', owned by skill 'word-count' ${loaded.version} › manager 'skill manager' (leaked too), made\n`,
      )
      expect(report).toContain("- manager 'skill manager', no owner, made\n")

      // Something made in the manager's name that its dispose forgot: the owner is named released.
      const spool = await withResourceOwner(manager, async () => {
        const store = new FileSpoolStore({ directory: join(await temp(), 'spool') })
        await store.put('kept')
        return store
      })
      await manager.dispose()
      leaks = await tracker.settle()
      expect(leaks.map((r) => r.kind).sort()).toEqual(['sandbox-dir', 'spool'])
      expect(tracker.ownersOf(leakOf(leaks, 'spool'))).toEqual([
        "manager 'skill manager' (released)",
      ])
      expect(describeLeaks(leaks, tracker)).toContain(
        `- spool '${spool.directory}', owned by manager 'skill manager' (released), made\n`,
      )

      // An MCP session that disposes its manager owns it (set after the manager was made).
      const second = await createSkillManager({
        sources: [memorySource([reportSkill()])],
        gate: async () => undefined,
      })
      const session = createSkillMcpServer({
        manager: second,
        serverInfo: { name: 'owner-test', version: '1' },
        disposeManager: true,
      })
      leaks = await tracker.settle()
      const managers = leaks.filter((r) => r.kind === 'manager')
      expect(managers.map((r) => tracker.ownersOf(r))).toEqual([
        ["mcp-session 'owner-test' (leaked too)"],
      ])
      await session.close()
      leaks = await tracker.settle()
      expect(leaks.map((r) => r.kind).sort()).toEqual(['sandbox-dir', 'spool'])

      // A pool owns its workers, whoever's call made it spawn one.
      const pool = createQuickJsGuest({ poolSize: 1 })
      await withResourceOwner(spool, () => pool.warm())
      leaks = await tracker.settle()
      expect(tracker.ownersOf(leakOf(leaks, 'worker'))).toEqual(['QuickJS guest pool (1 workers)'])
      await pool.dispose()

      await spool.destroy()
      await sandbox.dispose()
      expect(await tracker.settle()).toEqual([])
    },
  )
})
