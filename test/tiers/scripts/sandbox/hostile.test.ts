import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SkillHostError } from '../../../../src/common/errors.js'
import type { SkillScript } from '../../../../src/tiers/scripts/index.js'
import { runSkillScript, type ScriptRunResult } from '../../../../src/tiers/scripts/internal.js'
import { processesWithMarker } from '../../../helpers/proc-scan.js'
import { files, makeRig, onLinux, type Rig, script } from '../../../helpers/sandbox.js'

// Real scripts in the real sandbox: every test is an escape or exhaustion attempt.
describe.skipIf(!onLinux)('bubblewrap sandbox: hostile scripts', () => {
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
      interpreter?: string
      args?: Record<string, unknown>
      signal?: AbortSignal
      decl?: Partial<SkillScript>
    } = {},
  ): Promise<ScriptRunResult> {
    const ext = opts.interpreter === 'python' ? 'py' : 'sh'
    const root = await rig.workspace.materialize(
      { id: 'hostile', version: '1' },
      files({ [`scripts/main.${ext}`]: body }),
    )
    try {
      return await runSkillScript(rig.config, {
        skill: 'hostile',
        root,
        script: script({
          path: `scripts/main.${ext}`,
          interpreter: opts.interpreter ?? 'sh',
          ...opts.decl,
        }),
        args: opts.args ?? {},
        ...(opts.signal ? { signal: opts.signal } : {}),
      })
    } finally {
      await rig.workspace.dispose(root)
    }
  }

  const marker = () => `mark${randomUUID().replace(/-/g, '')}`
  const tokenParam = {
    params: [{ name: 'token', type: 'string' as const, positional: true, required: true }],
  }

  it('runs as an unprivileged uid with no capabilities and only the fixed environment', async () => {
    process.env.SKILLHOST_TEST_SECRET = 'sekrit-7f3a9'
    try {
      const r = await run(
        'id -u; grep CapEff /proc/self/status; /usr/bin/env; cat /proc/1/environ; echo',
      )
      expect(r.exitCode).toBe(0)
      expect(r.stdout).toMatch(/^65534\n/)
      expect(r.stdout).toContain('CapEff:\t0000000000000000')
      expect(r.stdout).not.toContain('sekrit-7f3a9')
      const keys = r.stdout
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => l.split('=')[0])
      // The request's four, and what the fd closer's bash exports on exec: PWD and SHLVL=0.
      expect(new Set(keys)).toEqual(new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'PWD', 'SHLVL']))
      expect(r.stdout).toMatch(/^SHLVL=0$/m)
    } finally {
      delete process.env.SKILLHOST_TEST_SECRET
    }
  })

  it('cannot read /etc/shadow, /root, the host home or the workspace base', async () => {
    const targets = ['/etc/shadow', '/etc/hostname', '/root', homedir(), rig.base]
    const body = targets.map(
      (t) =>
        `if cat '${t}' >/dev/null 2>&1 || ls '${t}' >/dev/null 2>&1; then echo "READ-OK ${t}"; fi`,
    )
    const r = await run(`${body.join('\n')}\necho done\n`)
    expect(r.stdout).toContain('done')
    expect(r.stdout).not.toContain('READ-OK')
  })

  // The skill's own folder is writable for the call (issue 37.2), as a copy of
  // the pinned bytes, which stay read-only: test/escape/writable-skill.test.ts.
  it('cannot write outside the scratch dir and its own folder’s copy, nor the pinned skill', async () => {
    const body = [
      'for t in /work/x /usr/x /x /etc/passwd /etc/x /dev/x /dev/shm/x /opt/skillhost/skill/x /opt/skillhost/skill/scripts/main.sh /proc/x; do',
      '  if (echo pwned >> "$t") 2>/dev/null; then echo "WRITE-OK $t"; fi',
      'done',
      'echo ok > /tmp/inside && echo "SCRATCH-OK"',
    ].join('\n')
    const r = await run(body)
    expect(r.stdout).toContain('SCRATCH-OK')
    expect(r.stdout).not.toContain('WRITE-OK')
    expect(readdirSync(rig.workspace.scratchDir)).toEqual([])
  })

  it('cannot reach a loopback listener on the host or resolve a name', async () => {
    let connections = 0
    const server = createServer((s) => {
      connections++
      s.destroy()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    try {
      const py = [
        'import socket',
        'for fn in (',
        `    lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=2),`,
        '    lambda: socket.getaddrinfo("example.com", 80),',
        '):',
        '    try:',
        '        fn(); print("NET-OK")',
        '    except Exception as e:',
        '        print("blocked", type(e).__name__)',
      ].join('\n')
      const r = await run(py, { interpreter: 'python' })
      expect(r.stdout).not.toContain('NET-OK')
      expect(r.stdout.match(/blocked/g)).toHaveLength(2)
      expect(connections).toBe(0)
    } finally {
      server.close()
    }
  })

  it('bounds a fork bomb and leaves no process behind', async () => {
    const token = marker()
    const bomb = 'b() { b | b & }; b; sleep 2'
    const before = process.memoryUsage().rss
    const err = await run(bomb, { args: { token, timeout_seconds: 5 }, decl: tokenParam }).then(
      (r) => r,
      (e: unknown) => e,
    )
    // Either it ran out of processes and ended, or it hit the deadline; both are bounded.
    if (SkillHostError.isInstance(err)) expect(err.code).toBe('E_SKILL_SCRIPT_TIMEOUT')
    expect(processesWithMarker(token)).toEqual([])
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024)
    const after = await run('echo alive')
    expect(after.stdout).toBe('alive\n')
  })

  it('kills a setsid daemon that traps TERM when the call ends', async () => {
    const token = marker()
    const body = `setsid sh -c 'trap "" TERM HUP; while :; do sleep 1; done' "$1" </dev/null >/dev/null 2>&1 &\nsleep 0.2\necho started`
    const r = await run(body, { args: { token }, decl: tokenParam })
    expect(r.stdout).toBe('started\n')
    expect(processesWithMarker(token)).toEqual([])
  })

  // Moving 1 GiB through a pipe takes seconds on a quiet machine and many
  // more on a loaded one; the deadline is not what is tested, so it is generous.
  it('caps 1 GiB of output and keeps host memory bounded', async () => {
    const before = process.memoryUsage().rss
    const patient = { ...rig.config, maxTimeoutSeconds: 150 }
    const root = await rig.workspace.materialize(
      { id: 'flood', version: '1' },
      files({ 'flood.sh': 'head -c 1073741824 /dev/zero; echo tail >&2' }),
    )
    try {
      const r = await runSkillScript(patient, {
        skill: 'flood',
        root,
        script: script({ path: 'flood.sh' }),
        args: { timeout_seconds: 150 },
      })
      expect(r.truncated).toBe(true)
      expect(r.bytes).toBe(1073741824 + 5)
      expect(r.stdout.length + r.stderr.length).toBeLessThanOrEqual(64 * 1024)
      expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024)
    } finally {
      await rig.workspace.dispose(root)
    }
  }, 180_000)

  it('kills a script sleeping past its deadline, leaving no process', async () => {
    const token = marker()
    const err = await run('sleep 30 & wait', {
      args: { token, timeout_seconds: 1 },
      decl: tokenParam,
    }).catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_SKILL_SCRIPT_TIMEOUT')).toBe(true)
    expect(processesWithMarker(token)).toEqual([])
    expect(readdirSync(rig.workspace.scratchDir)).toEqual([])
  })

  it('stops a write past the file-size limit', async () => {
    const limited = { ...rig.config, limits: { fileSizeBytes: 1024 * 1024 } }
    const root = await rig.workspace.materialize(
      { id: 'fsize', version: '1' },
      files({ 'big.sh': 'head -c 2000000 /dev/zero > /tmp/big; echo "rc=$?"; wc -c < /tmp/big' }),
    )
    try {
      const r = await runSkillScript(limited, {
        skill: 'fsize',
        root,
        script: script({ path: 'big.sh' }),
        args: {},
      })
      expect(r.stdout).toContain('rc=153') // 128 + SIGXFSZ
      expect(r.stdout).toContain('1048576')
    } finally {
      await rig.workspace.dispose(root)
    }
  })

  it('propagates an abort mid-run as E_ABORTED and leaves nothing behind', async () => {
    const token = marker()
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const err = await run('sleep 30 & wait', {
      args: { token },
      decl: tokenParam,
      signal: controller.signal,
    }).catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_ABORTED')).toBe(true)
    expect(processesWithMarker(token)).toEqual([])
    expect(readdirSync(rig.workspace.scratchDir)).toEqual([])
  })

  it('never shows host paths to the model, even from /proc/self/mountinfo', async () => {
    const r = await run('cat /proc/self/mountinfo; pwd')
    expect(r.stdout).toContain(' /skill ')
    expect(r.stdout).not.toContain(rig.base)
    expect(r.stdout).not.toContain(rig.workspace.skillsDir)
  })

  it('leaves no scratch directory and no workspace behind', () => {
    expect(readdirSync(rig.workspace.scratchDir)).toEqual([])
    expect(readdirSync(rig.workspace.skillsDir)).toEqual([])
    expect(existsSync(rig.workspace.skillsDir)).toBe(true)
    expect(readFileSync('/proc/self/status', 'utf8')).toContain('VmRSS')
  })
})
