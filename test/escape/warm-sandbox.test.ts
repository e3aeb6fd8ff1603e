import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBubblewrapHandle, type SandboxHandle } from '../../src/tiers/scripts/index.js'
import { runSkillScript, type ScriptRunResult } from '../../src/tiers/scripts/internal.js'
import { processesWithMarker, warmSandboxesOf } from '../helpers/proc-scan.js'
import { files, makeRig, onLinux, type Rig, script } from '../helpers/sandbox.js'

// Calls of one key share a warm sandbox (docs/security.md, "Warm sandbox");
// nothing one call leaves may reach the next. Every test first proves the two
// calls really shared the sandbox (same pid namespace, pid 1 the
// supervisor), then that the leftover is gone. How each was checked to fail
// with its barrier removed is said beside it (the supervisor edited in
// src/tiers/scripts/sandbox/warm-supervisor.ts, the test run, the edit undone).

const SKILL = {
  'SKILL.md': '---\nname: warm\ndescription: leaves things behind\n---\nbody\n',
  'keep.txt': 'pinned\n',
  // Prints the pid namespace and pid 1's name: the proof the call ran warm.
  'where.sh':
    'printf "ns=%s\\n" "$(readlink /proc/self/ns/pid)"; printf "init=%s\\n" "$(head -c 60 /proc/1/cmdline | tr "\\0\\n" "  ")"\n',
  'daemon.sh': [
    '. /skill/where.sh',
    // double fork + setsid, nohup, and a child that keeps forking as the call exits
    `setsid sh -c 'sleep 1000 & exit' "$1" </dev/null >/dev/null 2>&1 &`,
    `nohup sleep 1001 "$1" </dev/null >/dev/null 2>&1 &`,
    `(while :; do sh -c ': "$0"; sleep 1000' "$1" & done) </dev/null >/dev/null 2>&1 &`,
    'sleep 0.2',
  ].join('\n'),
  'survivors.sh': [
    '. /skill/where.sh',
    'n=0; for p in /proc/[0-9]*; do [ "$p" = /proc/1 ] && continue; [ "$p" = "/proc/$$" ] && continue',
    '  case "$(tr "\\0" " " <"$p/cmdline" 2>/dev/null)" in *"$1"*) n=$((n+1));; esac; done',
    'echo "survivors=$n"',
  ].join('\n'),
  'litter.sh': [
    '. /skill/where.sh',
    'echo left > /tmp/left; mkdir -p /tmp/locked/deep; echo x > /tmp/locked/deep/f; chmod 000 /tmp/locked/deep /tmp/locked',
    'echo "export EVIL=1" >> "$HOME/.bashrc"; echo left > /skill/left; echo changed > /skill/keep.txt',
    'chmod 700 /tmp; export LEFT_ENV=1; cd /',
  ].join('\n'),
  'look.sh': [
    '. /skill/where.sh',
    'echo "tmp=$(ls -A /tmp | tr "\\n" " ")"',
    'echo "skill=$(ls -A /skill | tr "\\n" " ")"',
    'echo "keep=$(cat /skill/keep.txt)"; echo "tmpmode=$(stat -c %a /tmp)"',
    'echo "env=$(env | sort | tr "\\n" " ")"; echo "cwd=$(pwd)"',
  ].join('\n'),
  'holdfd.sh': [
    '. /skill/where.sh',
    'exec 9>/tmp/held; (exec sleep 1000 "$1" >/dev/null 2>&1 </dev/null) & exec 9>&-; sleep 0.1',
    'exec 8</skill/keep.txt; sleep 1002 "$1" </dev/null >/dev/null 2>&1 &',
  ].join('\n'),
  'fds.sh': '. /skill/where.sh\necho "fds=$(ls /proc/self/fd | tr "\\n" " ")"\n',
  'garbage.sh': [
    '. /skill/where.sh',
    'n=0',
    // Every descriptor and FIFO a call can name (its own fds above 2 are its script's: left alone).
    'for f in /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2 /proc/1/fd/* /.skillhost-warm/* /dev/stdout /dev/stderr /dev/tty; do',
    `  printf 'X 0\\nR\\nB\\n4\\n1\\n/\\n0\\n\\n0\\n' > "$f" 2>/dev/null && n=$((n+1)); head -c 2000 /dev/urandom > "$f" 2>/dev/null; done`,
    'echo secret > /.skillhost-warm/planted 2>/dev/null && echo "control-written"',
    'cat /proc/1/environ >/dev/null 2>&1 && echo "environ-read"',
    'head -c 1 /proc/1/mem >/dev/null 2>&1 && echo "mem-read"',
    'ls /proc/1/fd >/dev/null 2>&1 && echo "fd-listed"',
    'for s in TERM INT HUP STOP KILL USR1 PIPE; do kill -s $s 1 2>/dev/null && n=$((n+1)); done',
    'echo; echo "attempts=$n"; echo "caught=$(grep SigCgt /proc/1/status | cut -f2)"',
    'exit 7',
  ].join('\n'),
}

describe.skipIf(!onLinux)('warm sandbox: nothing of one call reaches the next', () => {
  let rig: Rig
  let warm: SandboxHandle
  let root: string

  beforeAll(async () => {
    rig = await makeRig()
    warm = await createBubblewrapHandle({ warmIdleMs: 60_000 })
    root = await rig.workspace.materialize({ id: 'warm', version: '1' }, files(SKILL))
  })
  afterAll(async () => {
    await warm?.dispose?.()
    await rig?.cleanup()
  })

  const run = (path: string, args: Record<string, string> = {}, handle = warm) =>
    runSkillScript(
      { ...rig.config, handle },
      {
        skill: 'warm',
        root,
        script: script({
          path,
          params: [{ name: 'token', type: 'string', positional: true, required: true }],
        }),
        args: { token: 'none', ...args },
      },
    )
  const field = (r: ScriptRunResult, name: string) =>
    new RegExp(`^${name}=(.*)$`, 'm').exec(r.stdout)?.[1]

  /** The second call ran in the first's sandbox, under the supervisor. */
  function sameSandbox(first: ScriptRunResult, second: ScriptRunResult): void {
    expect(field(first, 'init')).toContain('skillhost-warm')
    expect(field(second, 'ns')).toBe(field(first, 'ns'))
  }

  // Checked: without `kill -KILL -1` and `settle` in `call`, 24 marked processes outlived the first call.
  it('a double-forked setsid daemon, a nohup sleep and a forking loop are gone before the next call', async () => {
    let attempts = 0
    for (let round = 0; round < 5; round++) {
      const token = `warmdaemon${process.pid}r${round}`
      const first = await run('daemon.sh', { token })
      expect(first.exitCode).toBe(0)
      expect(processesWithMarker(token)).toEqual([])
      const second = await run('survivors.sh', { token })
      sameSandbox(first, second)
      expect(field(second, 'survivors')).toBe('0')
      attempts++
    }
    expect(attempts).toBe(5)
  })

  // Checked: without `clean` after a call, tmp= was '.bashrc left locked'.
  it('files left in scratch, $HOME and /skill are gone; the cwd, the environment and the scratch mode are fresh', async () => {
    const coldLook = await run('look.sh', {}, rig.handle)
    const first = await run('litter.sh')
    expect(first.exitCode).toBe(0)
    const second = await run('look.sh')
    sameSandbox(first, second)
    expect(field(second, 'tmp')?.trim()).toBe('')
    expect(field(second, 'skill')?.trim().split(' ').sort()).toEqual(
      [
        'SKILL.md',
        'daemon.sh',
        'fds.sh',
        'garbage.sh',
        'holdfd.sh',
        'keep.txt',
        'litter.sh',
        'look.sh',
        'survivors.sh',
        'where.sh',
      ].sort(),
    )
    expect(field(second, 'keep')).toBe('pinned')
    // Exactly the cold call's view: no EVIL, no LEFT_ENV, the same cwd and scratch mode.
    for (const name of ['env', 'cwd', 'tmpmode', 'tmp', 'skill', 'keep']) {
      expect(field(second, name)).toBe(field(coldLook, name))
    }
  })

  // Checked: without the closer loop in the call's child, fds= also listed 4, 5, 6 and 251 (the supervisor's pipes and FIFO ends).
  it('a descriptor held open by a left-behind child does not reach the next call', async () => {
    const token = `warmfd${process.pid}`
    const first = await run('holdfd.sh', { token })
    expect(first.exitCode).toBe(0)
    const second = await run('fds.sh')
    sameSandbox(first, second)
    // ls's own directory descriptor is the one above 2.
    expect(field(second, 'fds')?.trim().split(' ')).toEqual(['0', '1', '2', '3'])
    expect(processesWithMarker(token)).toEqual([])
  })

  // Checked: with the supervisor's copy readable (0755, so dumpable), the call read /proc/1/environ
  // and listed /proc/1/fd; with `read -t` in `settle` (bash then catches SIGTERM) its `kill -s TERM 1`
  // ended the supervisor (exit 143) and the call failed.
  it('a call writing garbage everywhere and signalling pid 1 cannot break or steer the supervisor', async () => {
    const first = await run('garbage.sh')
    expect(first.exitCode).toBe(7)
    expect(first.stdout).not.toMatch(/control-written|environ-read|mem-read|fd-listed/)
    expect(Number(field(first, 'attempts'))).toBeGreaterThan(3)
    // pid 1 catches SIGCHLD only: no signal from a call can end or steer it.
    expect(field(first, 'caught')).toBe('0000000000010000')
    const second = await run('look.sh')
    sameSandbox(first, second)
    expect(second.exitCode).toBe(0)
    expect(second.stdout).toMatch(/^keep=pinned$/m)
    expect(second.stdout).not.toContain('X 0')
  })

  it('a timed-out call is killed with its tree, and the next call of the key gets a fresh sandbox', async () => {
    const token = `warmslow${process.pid}`
    const before = await run('where.sh')
    const slow = await runSkillScript(
      { ...rig.config, handle: warm },
      {
        skill: 'warm',
        root,
        script: script({
          path: 'daemon.sh',
          params: [{ name: 'token', type: 'string', positional: true, required: true }],
        }),
        args: { token },
        timeoutSeconds: 1,
      },
    ).catch((e: unknown) => e)
    void slow
    const after = await run('where.sh')
    expect(after.exitCode).toBe(0)
    expect(field(before, 'init')).toContain('skillhost-warm')
    expect(processesWithMarker(token)).toEqual([])
  })

  it('two concurrent calls of one key run in two sandboxes, and dispose ends every one', async () => {
    const [a, b] = await Promise.all([run('where.sh'), run('where.sh')])
    expect(field(a, 'ns')).not.toBe(field(b, 'ns'))
    const handle = await createBubblewrapHandle({ warmIdleMs: 60_000 })
    await run('where.sh', {}, handle)
    expect(warmSandboxesOf().length).toBeGreaterThan(0)
    await handle.dispose?.()
    await warm.dispose?.()
    expect(warmSandboxesOf()).toEqual([])
  })

  it('an idle warm sandbox ends by itself, and the next call of its key starts another', async () => {
    const handle = await createBubblewrapHandle({ warmIdleMs: 200 })
    try {
      const first = await run('where.sh', {}, handle)
      expect(field(first, 'init')).toContain('skillhost-warm')
      expect(warmSandboxesOf().length).toBeGreaterThan(0)
      // Polled, not timed: at most 100 looks, 100 ms apart.
      let looks = 0
      while (warmSandboxesOf().length > 0 && looks < 100) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        looks++
      }
      expect(warmSandboxesOf()).toEqual([])
      const second = await run('where.sh', {}, handle)
      expect(field(second, 'init')).toContain('skillhost-warm')
      expect(field(second, 'ns')).not.toBe(field(first, 'ns'))
    } finally {
      await handle.dispose?.()
    }
  })
})
