import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSystemSkillSource, SkillHostError } from '../../../src/index.js'
import type { SkillRef } from '../../../src/sources/index.js'
import {
  createScriptSandbox,
  type ScriptSandbox,
  SessionWorkspace,
} from '../../../src/tiers/scripts/index.js'
import { checkWorkspaceDir, runScriptOnce } from '../../../src/tiers/scripts/internal.js'
import { ranResult } from '../../helpers/script-outcome.js'

// A user's folder is never chowned or chmodded: scripts run as its owner.
// Only root can run scripts as another user, so these run as root (as CI does).
const USER = 1000
const NOBODY = { uid: 65534, gid: 65534 }

const base = mkdtempSync(join(tmpdir(), 'skillhost-ws-owner-'))
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))

const skillDir = join(base, 'skills', 'copier')
for (const [path, text] of Object.entries({
  'SKILL.md': '---\nname: copier\ndescription: Copies a file.\n---\nRun scripts/copy.sh.\n',
  // Reads the user's 0600 file and writes a new one: only its owner can do both.
  'scripts/copy.sh': '#!/bin/sh\ncat in.txt > out.txt && echo copied\n',
})) {
  mkdirSync(join(skillDir, path, '..'), { recursive: true })
  writeFileSync(join(skillDir, path), text)
}

/** uid, gid and permission bits: what must not change. */
function owner(path: string): { uid: number; gid: number; mode: number } {
  const st = statSync(path)
  return { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }
}

/** A folder owned by `uid` with `mode`, holding in.txt (0600, same owner). */
function folder(name: string, uid: number, mode: number, parent = base): string {
  const dir = join(parent, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'in.txt'), 'hello\n', { mode: 0o600 })
  chownSync(join(dir, 'in.txt'), uid, uid)
  chownSync(dir, uid, uid)
  chmodSync(dir, mode)
  return dir
}

const asRoot = process.platform === 'linux' && process.getuid?.() === 0

describe.skipIf(!asRoot)('a workspace folder keeps its owner and mode', () => {
  let sandbox: ScriptSandbox
  let source: FileSystemSkillSource
  let ref: SkillRef
  beforeAll(async () => {
    sandbox = await createScriptSandbox()
    source = new FileSystemSkillSource({ roots: [join(base, 'skills')] })
    const [found] = await source.discoverBatch()
    ref = { id: found!.id, version: found!.version }
    return () => sandbox.dispose()
  })

  const copy = (workspaceDir: string) =>
    ranResult(
      runScriptOnce(sandbox.config, {
        source,
        ref,
        call: { path: 'scripts/copy.sh', argv: [] },
        workspaceDir,
      }),
    )

  it("runs the script as the folder's owner: it reads the user's 0600 file and its output is theirs", async () => {
    const ws = folder('user-ws', USER, 0o700)
    const before = owner(ws)
    const result = await copy(ws)
    expect(result.stdout).toBe('copied\n')
    expect(result.exitCode).toBe(0)
    expect(owner(ws)).toEqual(before)
    expect(owner(join(ws, 'in.txt'))).toEqual({ uid: USER, gid: USER, mode: 0o600 })
    expect(statSync(join(ws, 'out.txt')).uid).toBe(USER)
  })

  it("reaches a folder under its owner's 0700 home, as on Debian", async () => {
    const home = join(base, 'home')
    mkdirSync(home)
    chownSync(home, USER, USER)
    chmodSync(home, 0o700)
    const ws = folder('project', USER, 0o755, home)
    const result = await copy(ws)
    expect(result.exitCode).toBe(0)
    expect(owner(home)).toEqual({ uid: USER, gid: USER, mode: 0o700 })
    expect(owner(ws)).toEqual({ uid: USER, gid: USER, mode: 0o755 })
  })

  it("makes the host's new files the owner's, and leaves an existing file's owner and mode", async () => {
    const ws = folder('put-ws', USER, 0o750)
    const workspace = await SessionWorkspace.create({ dir: ws, sandboxUser: NOBODY })
    try {
      expect(workspace.runAs).toEqual({ uid: USER, gid: NOBODY.gid })
      await workspace.put('sub/new.txt', 'new')
      await workspace.put('in.txt', 'changed')
    } finally {
      await workspace.dispose()
    }
    expect(owner(join(ws, 'sub'))).toEqual({ uid: USER, gid: USER, mode: 0o700 })
    expect(owner(join(ws, 'sub/new.txt'))).toEqual({ uid: USER, gid: USER, mode: 0o600 })
    expect(owner(join(ws, 'in.txt'))).toEqual({ uid: USER, gid: USER, mode: 0o600 })
    expect(owner(ws)).toEqual({ uid: USER, gid: USER, mode: 0o750 })
  })

  it('refuses a root-owned folder the sandbox user cannot write, with advice that needs no chown, and changes nothing', async () => {
    const ws = folder('root-ws', 0, 0o755)
    const before = owner(ws)
    for (const attempt of [() => copy(ws), () => checkWorkspaceDir(ws)]) {
      const err = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(SkillHostError.isInstance(err) && err.code).toBe('E_SKILL_WORKSPACE_FAILED')
      const message = (err as Error).message
      expect(message).toContain('belongs to root and scripts never run as root')
      expect(message).toContain('a regular user owns')
      expect(message).not.toMatch(/chgrp|chown|chmod/)
      expect(message).not.toContain(base)
    }
    expect(owner(ws)).toEqual(before)
  })

  it('runs as nobody in a root-owned folder that is open to it, and never as root', async () => {
    const ws = folder('open-ws', 0, 0o777)
    chmodSync(join(ws, 'in.txt'), 0o644)
    const result = await copy(ws)
    expect(result.exitCode).toBe(0)
    expect(statSync(join(ws, 'out.txt')).uid).toBe(NOBODY.uid)
    expect(owner(ws)).toEqual({ uid: 0, gid: 0, mode: 0o777 })
  })

  it('never runs a call as host root, whatever runAs says', async () => {
    const request = {
      argv: ['/usr/bin/bash', '-c', 'id -u'],
      cwd: '/',
      policy: {
        filesystem: {
          allowRead: ['/usr', '/bin', '/lib', '/lib64'],
          denyRead: [],
          allowWrite: [],
          denyWrite: [],
        },
        network: { allowedDomains: [] },
      },
      env: {},
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    }
    const err = await sandbox.config.handle.run({ ...request, runAs: { uid: 0, gid: 0 } }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(SkillHostError.isInstance(err) && err.code).toBe('E_SANDBOX_UNAVAILABLE')
    expect((err as Error).message).toContain('never runs as root')
    const ok = await sandbox.config.handle.run({
      ...request,
      runAs: { uid: USER, gid: NOBODY.gid },
    })
    expect(ok.exitCode).toBe(0)
  })

  it('refuses a user folder its owner cannot write, without touching it', async () => {
    const ws = folder('readonly-ws', USER, 0o555)
    const err = await checkWorkspaceDir(ws).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(SkillHostError.isInstance(err) && err.code).toBe('E_SKILL_WORKSPACE_FAILED')
    expect((err as Error).message).toContain("Scripts run as the folder's owner (uid 1000)")
    expect(owner(ws)).toEqual({ uid: USER, gid: USER, mode: 0o555 })
  })
})
