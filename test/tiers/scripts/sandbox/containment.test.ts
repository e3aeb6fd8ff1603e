import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { personText, SkillHostError } from '../../../../src/common/errors.js'
import { createScriptSandbox } from '../../../../src/tiers/scripts/config/create-script-sandbox.js'
import {
  createDirectoryWorkspace,
  type SkillScriptConfig,
} from '../../../../src/tiers/scripts/index.js'
import { runSkillScript, type ScriptRunResult } from '../../../../src/tiers/scripts/internal.js'
import { processesWithMarker } from '../../../helpers/proc-scan.js'
import {
  files,
  makeRig,
  onLinux,
  type Rig,
  SYSTEM_READ_PATHS,
  script,
} from '../../../helpers/sandbox.js'

const asRoot = process.getuid?.() === 0

/**
 * A host-side chain of `depth` nested directories below `dir`, deeper than
 * PATH_MAX: built as short chains (each path well under PATH_MAX) that are
 * then moved into one another, bottom piece first.
 */
function deepChain(dir: string, depth: number): void {
  const piece = 700
  const pieces: string[] = []
  for (let made = 0, i = 0; made < depth; made += piece, i++) {
    const levels = Math.min(piece, depth - made)
    const top = join(dir, `p${i}`)
    mkdirSync(join(top, ...Array(levels - 1).fill('d')), { recursive: true })
    pieces.push(join(top, ...Array(levels - 1).fill('d')))
  }
  for (let i = pieces.length - 1; i > 0; i--) {
    renameSync(join(dir, `p${i}`), join(pieces[i - 1] as string, `p${i}`))
  }
}

// Issue 10, items 2–6: what a call may write, who may read the workspace,
// how a sandbox that cannot start is reported, what the mount view shows, and
// how a call is terminated. Real bwrap, real scripts.
describe.skipIf(!onLinux)(
  'bubblewrap sandbox: containment of disk, modes, setup and termination',
  () => {
    let rig: Rig

    beforeAll(async () => {
      rig = await makeRig()
    })
    afterAll(async () => {
      await rig?.cleanup()
    })

    async function run(
      body: string,
      opts: {
        args?: Record<string, unknown>
        config?: SkillScriptConfig
        returnTimedOut?: boolean
      } = {},
    ): Promise<ScriptRunResult> {
      const root = await rig.workspace.materialize(
        { id: 'contained', version: '1' },
        files({ 'main.sh': body }),
      )
      try {
        return await runSkillScript(opts.config ?? rig.config, {
          skill: 'contained',
          root,
          script: script({
            path: 'main.sh',
            params: [{ name: 'token', type: 'string', positional: true, required: true }],
          }),
          args: { token: 'none', ...opts.args },
          ...(opts.returnTimedOut ? { returnTimedOut: true } : {}),
        })
      } finally {
        await rig.workspace.dispose(root)
      }
    }

    it('caps the whole writable area of a call, all files together, and writes nothing to the host disk', async () => {
      const capped = { ...rig.config, limits: { writableBytes: 4 * 1024 * 1024 } }
      const r = await run(
        [
          'for i in 1 2 3 4 5 6; do head -c 1048576 /dev/zero > "f$i" 2>/dev/null || echo "full at $i"; done',
          'mkdir -p sub && head -c 1048576 /dev/zero > sub/g 2>/dev/null || echo "full again"',
          'du -sk . | cut -f1',
          'grep " /tmp " /proc/self/mountinfo',
        ].join('\n'),
        { config: capped },
      )
      expect(r.stdout).toMatch(/full at [45]/)
      expect(r.stdout).toContain('full again')
      const used = Number(r.stdout.split('\n').find((l) => /^\d+$/.test(l)))
      expect(used).toBeLessThanOrEqual(4096)
      expect(r.stdout).toMatch(/tmpfs .*size=4096k/)
      // The scratch is memory in the sandbox, not a host directory.
      expect(readdirSync(rig.workspace.scratchDir)).toEqual([])
      expect((await run('echo fine')).stdout).toBe('fine\n')
    })

    it('survives a chain of 2,100 nested directories in the scratch', async () => {
      // bash, since dash cannot cd below PATH_MAX; three 700-level mkdir -p calls.
      const r = await run(
        `exec /bin/bash -c 'p=$(printf "d/%.0s" $(seq 700)); for i in 1 2 3; do mkdir -p "$p" && cd -P "$p" || exit 9; done; pwd | wc -c'`,
      )
      expect(r.exitCode).toBe(0)
      expect(Number(r.stdout)).toBeGreaterThan(4096)
      expect(readdirSync(rig.workspace.scratchDir)).toEqual([])
      expect((await run('echo next')).stdout).toBe('next\n')
    })

    it('removes a host directory tree deeper than PATH_MAX, where fs.rm fails', async () => {
      const scratch = await rig.workspace.createScratch()
      deepChain(scratch, 2_100)
      const plain = await rm(scratch, { recursive: true, force: true }).then(
        () => 'removed',
        (e: NodeJS.ErrnoException) => e.code,
      )
      expect(plain).toBe('ENAMETOOLONG')
      await rig.workspace.disposeScratch(scratch)
      expect(existsSync(scratch)).toBe(false)
    })

    it('disposes an embedded sandbox whose base holds such a tree without rejecting', async () => {
      const sandbox = await createScriptSandbox()
      deepChain(sandbox.baseDir, 2_100)
      await expect(sandbox.dispose()).resolves.toBeUndefined()
      expect(existsSync(sandbox.baseDir)).toBe(false)
    })

    it.skipIf(!asRoot)(
      'keeps materialized files private to the host and the sandbox identity',
      async () => {
        const root = await rig.workspace.materialize(
          { id: 'secret', version: '1' },
          files({
            'secret.txt': 'the-secret',
            'scripts/read.sh': 'cat "$(dirname "$0")/../secret.txt"',
          }),
        )
        try {
          for (const path of [
            rig.workspace.skillsDir,
            root,
            join(root, 'scripts'),
            join(root, 'secret.txt'),
          ]) {
            expect(lstatSync(path).mode & 0o007).toBe(0)
          }
          const other = { uid: 4321, gid: 4321 }
          const cat = spawnSync('cat', [join(root, 'secret.txt')], { ...other, encoding: 'utf8' })
          expect(cat.status).not.toBe(0)
          expect(cat.stdout).not.toContain('the-secret')
          expect(spawnSync('ls', [rig.workspace.skillsDir], { ...other }).status).not.toBe(0)
          // The sandbox still reads the skill's own files.
          const r = await runSkillScript(rig.config, {
            skill: 'secret',
            root,
            script: script({ path: 'scripts/read.sh' }),
            args: {},
          })
          expect(r.stdout).toBe('the-secret')
        } finally {
          await rig.workspace.dispose(root)
        }
      },
    )

    it.skipIf(!asRoot)(
      'reports a sandbox that cannot start as E_SANDBOX_UNAVAILABLE, not as the script failing',
      async () => {
        const hidden = mkdtempSync(join(tmpdir(), 'skillhost-hidden-'))
        try {
          chmodSync(hidden, 0o700)
          mkdirSync(join(hidden, 'inner'))
          const err = await rig.handle
            .run({
              argv: ['/bin/true'],
              cwd: '/',
              policy: {
                filesystem: {
                  allowRead: [...SYSTEM_READ_PATHS, join(hidden, 'inner')],
                  denyRead: [],
                  allowWrite: [],
                  denyWrite: [],
                },
                network: { allowedDomains: [] },
              },
              env: {},
              timeoutMs: 5_000,
              maxOutputBytes: 4_096,
            })
            .then(
              () => undefined,
              (e: unknown) => e,
            )
          expect(SkillHostError.is(err, 'E_SANDBOX_UNAVAILABLE')).toBe(true)
          expect((err as Error).message).toMatch(/failed to set up the sandbox.*traversable/)
          expect((err as Error).message).not.toContain(hidden)
          expect(personText(err)).toMatch(/bwrap said: /)
          const ok = await rig.handle.run({
            argv: ['/bin/true'],
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
            timeoutMs: 5_000,
            maxOutputBytes: 4_096,
          })
          expect(ok.exitCode).toBe(0)
        } finally {
          rmSync(hidden, { recursive: true, force: true })
        }
      },
    )

    it.skipIf(!asRoot)(
      'detects an untraversable workspace at materialization, naming what to fix',
      async () => {
        const hidden = mkdtempSync(join(tmpdir(), 'skillhost-hidden-'))
        try {
          chmodSync(hidden, 0o700)
          const ws = await createDirectoryWorkspace({ baseDir: join(hidden, 'ws') })
          const err = await ws
            .materialize({ id: 'x', version: '1' }, files({ 'a.txt': 'a' }))
            .catch((e: unknown) => e)
          expect(SkillHostError.is(err, 'E_SKILL_WORKSPACE_FAILED')).toBe(true)
          // The person is told which folder and what to run; the model, neither.
          expect(personText(err)).toMatch(/cannot traverse .*chmod o\+x/)
          expect(personText(err)).toContain(hidden)
          expect((err as Error).message).not.toContain(hidden)
          expect((err as Error).message).toMatch(/not traversable/)
          expect(readdirSync(ws.skillsDir)).toEqual([])
        } finally {
          rmSync(hidden, { recursive: true, force: true })
        }
      },
    )

    it('shows no host path of the scratch in the mount view, even encoded; the skill root’s is visible (a stated non-claim)', async () => {
      const r = await run('base64 -w0 /proc/self/mountinfo')
      const view = Buffer.from(r.stdout, 'base64').toString('utf8')
      expect(view).toContain(' /tmp ')
      expect(view).not.toContain(rig.workspace.scratchDir)
      // docs/security.md item 5 and the README say so: the bind source of the
      // skill root appears in mountinfo, and a script can encode it past the
      // redactor. If this changes, update both.
      expect(view).toContain(rig.workspace.skillsDir.slice(rig.base.length))
    })

    it('sends SIGTERM first, so a script can clean up before the deadline kill', async () => {
      const token = `term${randomUUID().replace(/-/g, '')}`
      const r = await run(
        `trap 'echo cleaned; exit 3' TERM\necho ready\nwhile :; do sleep 0.1; done`,
        {
          args: { token, timeout_seconds: 1 },
          returnTimedOut: true,
        },
      )
      expect(r.timedOut).toBe(true)
      expect(r.signal).toBe('SIGTERM')
      expect(r.stdout).toBe('ready\ncleaned\n')
      expect(processesWithMarker(token)).toEqual([])
    })

    it('SIGKILLs the whole namespace after the grace when TERM is ignored', async () => {
      const token = `kill${randomUUID().replace(/-/g, '')}`
      const body = `trap '' TERM\nsetsid sh -c 'trap "" TERM; while :; do sleep 0.1; done' "$1" </dev/null >/dev/null 2>&1 &\necho ready\nwhile :; do sleep 0.1; done`
      const r = await run(body, { args: { token, timeout_seconds: 1 }, returnTimedOut: true })
      expect(r.timedOut).toBe(true)
      expect(r.signal).toBe('SIGKILL')
      expect(r.stdout).toBe('ready\n')
      expect(processesWithMarker(token)).toEqual([])
      const err = await run('sleep 30', { args: { timeout_seconds: 1 } }).catch((e: unknown) => e)
      expect(SkillHostError.is(err, 'E_SKILL_SCRIPT_TIMEOUT')).toBe(true)
    })
  },
)
