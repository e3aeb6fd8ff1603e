import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSkillManager, forgeSkillTools, type SkillManager } from '../../src/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'
import {
  runSkillScript,
  type ScriptRunResult,
  withWorkspaceDir,
} from '../../src/tiers/scripts/internal.js'
import { SessionWorkspaceSlot } from '../../src/tiers/scripts/workspace/session-workspace-slot.js'
import { processesWithMarker, warmSandboxesOf } from '../helpers/proc-scan.js'
import { script } from '../helpers/sandbox.js'

// The warm sandbox is on by default (`createScriptSandbox`'s `warmIdleMs`):
// its sandboxes belong to the session whose workspace a call runs in. Two
// sessions never share one, even when everything else about their calls is
// equal, and a session's end ends its sandboxes (docs/security.md, "Warm
// sandbox"). Processes are counted as the warm bwraps this worker started
// (`warmSandboxesOf`), so other test runs on the machine do not count.

// Every temporary file of this file (warm control folders included) in one folder of ours.
const temp = mkdtempSync(join(tmpdir(), 'skillhost-warm-sessions-'))
chmodSync(temp, 0o755)
process.env.TMPDIR = temp
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const WHERE =
  'printf "ns=%s\\n" "$(readlink /proc/self/ns/pid)"; printf "init=%s\\n" "$(head -c 60 /proc/1/cmdline | tr "\\0\\n" "  ")"\necho "left=$(ls -A "$HOME" | tr "\\n" " ")"; echo here > "$HOME/mine"\n'

/** Marks the slow call's process on this machine. */
const MARK = `warmsessions${process.pid}`

const field = (text: string, name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1]

/** Control folders of warm sandboxes left in our temp folder. */
const controlDirs = () => readdirSync(temp).filter((n) => n.startsWith('skillhost-warm-'))

describe.skipIf(process.platform !== 'linux')('warm sandboxes belong to their session', () => {
  let sandbox: ScriptSandbox
  let skills: string
  let shared: string

  beforeAll(async () => {
    skills = join(temp, 'skills')
    mkdirSync(join(skills, 'warmwhere'), { recursive: true })
    writeFileSync(
      join(skills, 'warmwhere', 'SKILL.md'),
      '---\nname: warmwhere\ndescription: Says where it runs.\n---\nRun where.sh.\n',
    )
    writeFileSync(join(skills, 'warmwhere', 'where.sh'), WHERE)
    shared = join(temp, 'shared-ws')
    // A folder made for scripts (install -d -o 65534 -m 700), as docs/operations.md advises.
    mkdirSync(shared, { mode: 0o700 })
    chownSync(shared, 65534, 65534)
    // The library default: no warmIdleMs given.
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 30, defaultTimeoutSeconds: 20 })
  })
  afterAll(async () => {
    await sandbox?.dispose()
  })

  /** A manager (one session) over the skill, and its `where.sh` call. */
  async function session(): Promise<{ manager: SkillManager; where(): Promise<string> }> {
    const manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [skills] })],
      gate: async () => undefined,
      defaultChannel: 'inline',
      scripts: { ...sandbox.config, undeclared: 'allow' },
    })
    const ctx = manager.createTurnContext()
    for (const tool of forgeSkillTools(manager)) ctx.tools.register(tool)
    const loaded = JSON.parse(
      String(await ctx.tools.get('load_skill')!.execute({ skill: 'warmwhere' }, ctx)),
    )
    const run = ctx.tools.get(loaded.toolsAdded[0])!
    return {
      manager,
      where: async () => String(await run.execute({ script: 'where.sh' }, ctx)),
    }
  }

  // Checked: with `owner` left out of the pool's key and `release` a no-op, the
  // shared-folder case gave both sessions one namespace, and A's dispose left its bwrap.
  it('two sessions of one sandbox never share a warm sandbox, and each session ends its own', async () => {
    const before = warmSandboxesOf().length
    const a = await session()
    const b = await session()
    const a1 = await a.where()
    const a2 = await a.where()
    const b1 = await b.where()
    const b2 = await b.where()
    // On by default: the calls ran warm, each session's second call in its first's sandbox.
    expect(field(a1, 'init')).toContain('skillhost-warm')
    expect(field(a2, 'ns')).toBe(field(a1, 'ns'))
    expect(field(b2, 'ns')).toBe(field(b1, 'ns'))
    expect(field(b1, 'ns')).not.toBe(field(a1, 'ns'))
    // Nothing of the first call reached the second: $HOME is empty again.
    expect(field(a2, 'left')).toBe('')
    expect(warmSandboxesOf().length).toBe(before + 2)
    await a.manager.dispose()
    expect(warmSandboxesOf().length).toBe(before + 1)
    // B's sandbox was not touched by A's end.
    expect(field(await b.where(), 'ns')).toBe(field(b1, 'ns'))
    await b.manager.dispose()
    expect(warmSandboxesOf().length).toBe(before)
  })

  /** Session workspaces over one deployer folder: keys equal but for their owner. */
  const sharedSlot = () => new SessionWorkspaceSlot(withWorkspaceDir(sandbox.config, shared))
  const call = async (slot: SessionWorkspaceSlot | undefined, skillRoot: string) =>
    runSkillScript(withWorkspaceDir(sandbox.config, shared), {
      skill: 'warmwhere',
      root: skillRoot,
      script: script({ path: 'where.sh' }),
      args: {},
      ...(slot === undefined ? {} : { workspace: await slot.open() }),
    })
  const ns = (r: ScriptRunResult) => field(r.stdout, 'ns')

  it('same skill copy, same folder, same limits: two sessions still get two sandboxes, and no session shares with a call of none', async () => {
    const copies = sandbox.config.workspace
    const copyRoot = await copies.materialize({ id: 'warmwhere', version: '1' }, [
      { path: 'where.sh', read: async () => new TextEncoder().encode(WHERE) },
    ])
    const one = sharedSlot()
    const two = sharedSlot()
    try {
      const before = warmSandboxesOf().length
      let attempts = 0
      const seen: Record<string, Set<string | undefined>> = { one: new Set(), two: new Set() }
      for (let round = 0; round < 3; round++) {
        // Interleaved, and at once: neither may ever land in the other's sandbox.
        const [r1, r2] = await Promise.all([call(one, copyRoot), call(two, copyRoot)])
        seen.one!.add(ns(r1))
        seen.two!.add(ns(r2))
        expect(field(r1.stdout, 'left')).toBe('')
        attempts++
      }
      expect(attempts).toBe(3)
      expect(seen.one!.size).toBe(1)
      expect(seen.two!.size).toBe(1)
      expect([...seen.one!][0]).not.toBe([...seen.two!][0])
      // A call with no session runs in a sandbox of its own too.
      const none = await call(undefined, copyRoot)
      expect(field(none.stdout, 'init')).toContain('skillhost-warm')
      expect(seen.one!.has(ns(none)) || seen.two!.has(ns(none))).toBe(false)
      expect(warmSandboxesOf().length).toBe(before + 3)
      await one.dispose()
      expect(warmSandboxesOf().length).toBe(before + 2)
      expect(ns(await call(two, copyRoot))).toBe([...seen.two!][0])
    } finally {
      await one.dispose()
      await two.dispose()
      await copies.dispose(copyRoot)
    }
  })

  // Checked: with the slot's `release` call removed, the running call finished and its sandbox was given back.
  it("a session's end kills its running call's sandbox, which is never given back", async () => {
    const copies = sandbox.config.workspace
    const copyRoot = await copies.materialize({ id: 'warmwhere', version: '2' }, [
      { path: 'where.sh', read: async () => new TextEncoder().encode(WHERE) },
      {
        path: 'slow.sh',
        read: async () => new TextEncoder().encode(`sh -c 'sleep 600' ${MARK}\n`),
      },
    ])
    const slot = sharedSlot()
    try {
      const before = warmSandboxesOf().length
      const first = await call(slot, copyRoot)
      expect(field(first.stdout, 'init')).toContain('skillhost-warm')
      const slow = runSkillScript(withWorkspaceDir(sandbox.config, shared), {
        skill: 'warmwhere',
        root: copyRoot,
        script: script({ path: 'slow.sh' }),
        args: {},
        workspace: await slot.open(),
      }).catch((e: unknown) => e)
      // Polled, not timed: the call is running once the sandbox's namespace holds more than its supervisor.
      let looks = 0
      while (!(await callRunning()) && looks < 300) {
        await new Promise((r) => setTimeout(r, 50))
        looks++
      }
      expect(looks).toBeLessThan(300)
      await slot.dispose()
      expect(warmSandboxesOf().length).toBe(before)
      const ended = await slow
      // The call did not run to its end: its sandbox ended under it (the session is gone).
      expect(ended).toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE' })
      expect(processesWithMarker(MARK)).toEqual([])
      expect(warmSandboxesOf().length).toBe(before)
    } finally {
      await slot.dispose()
      await copies.dispose(copyRoot)
    }
  })

  it('warmIdleMs 0 (serve --no-warm-sandbox) runs every call cold; a value a timer cannot hold is refused', async () => {
    const cold = await createScriptSandbox({
      baseDir: mkdtempSync(join(temp, 'cold-')),
      warmIdleMs: 0,
    })
    const slot = new SessionWorkspaceSlot(cold.config)
    try {
      const copyRoot = await cold.config.workspace.materialize({ id: 'warmwhere', version: '1' }, [
        { path: 'where.sh', read: async () => new TextEncoder().encode(WHERE) },
      ])
      const one = () =>
        slot.open().then((workspace) =>
          runSkillScript(cold.config, {
            skill: 'warmwhere',
            root: copyRoot,
            script: script({ path: 'where.sh' }),
            args: {},
            workspace,
          }),
        )
      const [a, b] = [await one(), await one()]
      expect(field(a.stdout, 'init')).not.toContain('skillhost-warm')
      expect(ns(b)).not.toBe(ns(a))
    } finally {
      await slot.dispose()
      await cold.dispose()
    }
    for (const warmIdleMs of [-1, 1.5, Number.NaN, 2 ** 31])
      await expect(createScriptSandbox({ warmIdleMs }), String(warmIdleMs)).rejects.toMatchObject({
        code: 'E_INVALID_SKILLS_CONFIG',
      })
  })

  it('the sandbox dispose leaves no warm process, control folder or descriptor', async () => {
    const fds = readdirSync('/proc/self/fd').length
    const others = new Set(warmSandboxesOf())
    const dirs = new Set(controlDirs())
    const own = await createScriptSandbox({ baseDir: mkdtempSync(join(temp, 'own-')) })
    const slot = new SessionWorkspaceSlot(own.config)
    const copyRoot = await own.config.workspace.materialize({ id: 'warmwhere', version: '1' }, [
      { path: 'where.sh', read: async () => new TextEncoder().encode(WHERE) },
    ])
    const r = await runSkillScript(own.config, {
      skill: 'warmwhere',
      root: copyRoot,
      script: script({ path: 'where.sh' }),
      args: {},
      workspace: await slot.open(),
    })
    expect(field(r.stdout, 'init')).toContain('skillhost-warm')
    const mine = warmSandboxesOf().filter((pid) => !others.has(pid))
    expect(mine).toHaveLength(1)
    expect(controlDirs().filter((d) => !dirs.has(d))).toHaveLength(1)
    // Idle, the sandbox is left to the pool: the sandbox's dispose alone ends it.
    await own.dispose()
    expect(warmSandboxesOf().filter((pid) => mine.includes(pid))).toEqual([])
    expect(warmSandboxesOf().filter((pid) => !others.has(pid))).toEqual([])
    expect(controlDirs().filter((d) => !dirs.has(d))).toEqual([])
    await slot.dispose()
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(fds)
  })
})

/** True while the slow call runs: its marked shell is alive. */
async function callRunning(): Promise<boolean> {
  return processesWithMarker(MARK).length > 0
}
