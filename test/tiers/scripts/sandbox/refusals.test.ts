import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SkillHostError } from '../../../../src/common/errors.js'
import { deny } from '../../../../src/common/gate.js'
import { createTurnContext } from '../../../../src/common/turn-context.js'
import {
  createBubblewrapHandle,
  type SandboxHandle,
  type SkillScriptConfig,
} from '../../../../src/tiers/scripts/index.js'
import {
  filesFromDirectory,
  runSkillScript,
  type SkippedLink,
  settleScriptResult,
} from '../../../../src/tiers/scripts/internal.js'
import { codeOf, rejectsWith } from '../../../helpers/error-code.js'
import { files, makeRig, onLinux, type Rig, script } from '../../../helpers/sandbox.js'

describe.skipIf(!onLinux)('tier-3 scripts: refusals before and around the sandbox', () => {
  let rig: Rig
  let root: string
  let calls = 0
  let counted: SkillScriptConfig

  beforeAll(async () => {
    rig = await makeRig()
    root = await rig.workspace.materialize(
      { id: 'refuse', version: '1' },
      files({ 'run.sh': 'echo "args:$*"', 'fail.sh': 'echo oops >&2; exit 3' }),
    )
    const inner = rig.handle
    const handle: SandboxHandle = {
      run: (req) => {
        calls++
        return inner.run(req)
      },
    }
    counted = { ...rig.config, handle }
  })
  afterAll(async () => {
    await rig?.cleanup()
  })

  const call = (
    config: SkillScriptConfig,
    decl: Parameters<typeof script>[0],
    args: Record<string, unknown> = {},
  ) => runSkillScript(config, { skill: 'refuse', root, script: script(decl), args })

  it('rejects every unsafe script path before anything runs', async () => {
    const before = calls
    for (const path of [
      '/etc/passwd',
      '../x.sh',
      'a/../../x',
      '~/x.sh',
      '~root/x',
      'C:\\x.sh',
      'c:x',
      '\\\\srv\\share\\x',
      '//srv/x',
      '\\\\.\\COM1',
      'NUL',
      'a/con.txt',
      'a\0b',
      '',
    ]) {
      expect(await codeOf(call(counted, { path })), JSON.stringify(path)).toBe(
        'E_SKILL_SOURCE_PATH_REJECTED',
      )
    }
    expect(calls).toBe(before)
  })

  it('rejects option-injection and NUL values, and never runs the script', async () => {
    const params = [{ name: 'target', type: 'string' as const, positional: true, required: true }]
    const before = calls
    for (const target of ['--rm', '-rf', 'a\0b', '-']) {
      expect(await codeOf(call(counted, { path: 'run.sh', params }, { target }))).toBe(
        'E_SKILL_SCRIPT_INVALID_ARGS',
      )
    }
    expect(await codeOf(call(counted, { path: 'run.sh', params }, { target: 'x', extra: 1 }))).toBe(
      'E_SKILL_SCRIPT_INVALID_ARGS',
    )
    expect(
      await codeOf(call(counted, { path: 'run.sh', params }, { target: 'x', timeout_seconds: 99 })),
    ).toBe('E_SKILL_SCRIPT_INVALID_ARGS')
    expect(calls).toBe(before)
    const ok = await call(counted, { path: 'run.sh', params }, { target: 'a b; rm -rf /' })
    expect(ok.stdout).toBe('args:a b; rm -rf /\n')
  })

  it('rejects an interpreter absent from the allow-list, naming the allowed ones', async () => {
    const err = await call(counted, { path: 'run.sh', interpreter: 'ruby' }).catch(
      (e: unknown) => e,
    )
    expect(SkillHostError.is(err, 'E_SKILL_MANIFEST_INVALID')).toBe(true)
    expect((err as Error).message).toContain("declares interpreter 'ruby'")
    expect((err as Error).message).toContain('allowed: node, python, sh')
    expect(await codeOf(call(counted, { path: 'run.sh', interpreter: 'constructor' }))).toBe(
      'E_SKILL_MANIFEST_INVALID',
    )
  })

  it('rejects an optional positional parameter', async () => {
    const params = [{ name: 'file', type: 'string' as const, positional: true }]
    expect(await codeOf(call(counted, { path: 'run.sh', params }, { file: 'x' }))).toBe(
      'E_SKILL_MANIFEST_INVALID',
    )
  })

  it('refuses a derived policy wider than the session, naming the entry', async () => {
    const narrow: SkillScriptConfig = {
      ...counted,
      policy: {
        ...counted.policy,
        filesystem: {
          ...counted.policy.filesystem,
          allowRead: counted.policy.filesystem.allowRead.filter((p) => p !== '/lib64'),
        },
      },
    }
    const before = calls
    const err = await call(narrow, { path: 'run.sh' }).catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_SKILL_SCRIPT_POLICY_WIDENED')).toBe(true)
    expect((err as Error).message).toContain("'/lib64'")
    expect(calls).toBe(before)
  })

  it('distinguishes a gate refusal (403) from a broken gate (503); neither runs the script', async () => {
    const ctx = createTurnContext()
    const before = calls
    const run = (gate: Parameters<typeof runSkillScript>[1]['gate']) =>
      runSkillScript(counted, {
        skill: 'refuse',
        root,
        script: script({ path: 'run.sh' }),
        args: {},
        gate,
      }).catch((e: unknown) => e)
    const refused = await run({
      gate: () => Promise.reject(deny('no scripts today')),
      ctx,
      tool: 'run_refuse_main',
    })
    expect(SkillHostError.is(refused, 'E_SKILL_SCRIPT_DENIED') && refused.status).toBe(403)
    const broken = await run({
      gate: () => {
        throw new Error('policy service down')
      },
      ctx,
      tool: 'run_refuse_main',
    })
    expect(SkillHostError.is(broken, 'E_SKILL_SCRIPT_GATE_UNAVAILABLE') && broken.status).toBe(503)
    const missing = await run({ gate: undefined, ctx, tool: 'run_refuse_main' })
    expect(SkillHostError.is(missing, 'E_SKILL_SCRIPT_GATE_UNAVAILABLE')).toBe(true)
    expect(calls).toBe(before)
    const allowed = await run({ gate: () => undefined, ctx, tool: 'run_refuse_main' })
    expect((allowed as { exitCode: number }).exitCode).toBe(0)
  })

  it('reports a nonzero exit as E_SKILL_SCRIPT_FAILED with exit code and retrievable id, unless told not to', async () => {
    const result = await call(counted, { path: 'fail.sh' })
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toBe('oops\n')
    const err = rejectsWith(
      () => settleScriptResult(result, { retrievableId: 'ret_1' }),
      'E_SKILL_SCRIPT_FAILED',
    )
    expect(err.data).toMatchObject({ exitCode: 3, retrievableId: 'ret_1' })
    const ack = settleScriptResult(result, { retrievableId: 'ret_1', failOnNonzeroExit: false })
    expect(ack).toContain('exit code 3')
    expect(ack).toContain('ret_1')
    expect(ack).toContain('truncated: no')
  })

  it('never follows a symlink in a skill out of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillhost-link-'))
    try {
      mkdirSync(join(dir, 'scripts'))
      writeFileSync(
        join(dir, 'scripts/read.sh'),
        'cat /skill/passwd-link /skill/scripts/inner 2>&1; echo end',
      )
      writeFileSync(join(dir, 'data.txt'), 'inside')
      symlinkSync('/etc/passwd', join(dir, 'passwd-link'))
      symlinkSync('../data.txt', join(dir, 'scripts/inner'))
      const skipped: SkippedLink[] = []
      const list = await filesFromDirectory(dir, { onSkipped: (s) => skipped.push(s) })
      expect(skipped).toEqual([{ path: 'passwd-link', reason: 'outside' }])
      expect(list.map((f) => f.path).sort()).toEqual([
        'data.txt',
        'scripts/inner',
        'scripts/read.sh',
      ])
      const linkRoot = await rig.workspace.materialize({ id: 'links', version: '1' }, list)
      try {
        const r = await runSkillScript(counted, {
          skill: 'links',
          root: linkRoot,
          script: script({ path: 'scripts/read.sh' }),
          args: {},
        })
        expect(r.stdout).not.toContain('root:')
        expect(r.stdout).toContain('No such file')
        expect(r.stdout).toContain('inside')
      } finally {
        await rig.workspace.dispose(linkRoot)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('runs concurrent calls without leaking scratch directories', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(
          counted,
          {
            path: 'run.sh',
            params: [{ name: 'n', type: 'integer', positional: true, required: true }],
          },
          { n: i },
        ),
      ),
    )
    expect(results.map((r) => r.stdout)).toEqual(Array.from({ length: 8 }, (_, i) => `args:${i}\n`))
  })

  it('refuses to grant network domains through the bubblewrap handle', async () => {
    const req = {
      argv: ['/bin/true'],
      cwd: '/',
      env: {},
      timeoutMs: 1000,
      maxOutputBytes: 10,
      policy: {
        filesystem: {
          allowRead: ['/usr', '/bin', '/lib', '/lib64'],
          denyRead: [],
          allowWrite: [],
          denyWrite: [],
        },
        network: { allowedDomains: ['example.com'] },
      },
    }
    expect(await codeOf(rig.handle.run(req))).toBe('E_SANDBOX_UNAVAILABLE')
  })

  it('fails clearly, naming the package, when bwrap is missing', async () => {
    const err = await createBubblewrapHandle({ bwrapPath: '/nonexistent/bwrap' }).catch(
      (e: unknown) => e,
    )
    expect(SkillHostError.is(err, 'E_SANDBOX_UNAVAILABLE')).toBe(true)
    expect((err as Error).message).toContain('apt-get install bubblewrap')
  })
})
