import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createScriptSandbox, type ScriptSandbox } from '../../../../src/tiers/scripts/index.js'
import { SYSTEM_READ_PATHS } from '../../../../src/tiers/scripts/policy/script-interpreters.js'
import { sandboxBaseEnv } from '../../../../src/tiers/scripts/sandbox/bwrap-args.js'
import {
  hostLinkClosure,
  LINK_TARGET_ROOTS,
} from '../../../../src/tiers/scripts/sandbox/host-link-closure.js'
import { onLinux, runScriptOnce } from '../../../helpers/sandbox.js'

/** Every name in the host's command folders that resolves on the host (a dangling link does not). */
function hostCommands(): string[] {
  const out: string[] = []
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin']) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (!name.includes('\n') && existsSync(path)) out.push(path)
    }
  }
  return out
}

// Issue 37, item 1: every command a script finds on the host, it finds inside.
describe.skipIf(!onLinux)('the sandbox resolves the links of the system folders', () => {
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    sandbox = await createScriptSandbox()
  })
  afterAll(async () => {
    await sandbox?.dispose()
  })

  it('finds inside every command of /usr/bin, /bin, /usr/sbin, /sbin and /usr/local/bin that resolves on the host (one bwrap)', async () => {
    const commands = hostCommands()
    expect(commands.length).toBeGreaterThan(100)
    const checker = [
      'n=0',
      'while IFS= read -r p; do n=$((n+1)); [ -e "$p" ] || printf "MISSING %s\\n" "$p"; done < "$(dirname "$0")/names.txt"',
      'echo "checked $n"',
    ].join('\n')
    const r = await runScriptOnce(
      sandbox.config,
      { 'check.sh': checker, 'names.txt': `${commands.join('\n')}\n` },
      'check.sh',
      'bash',
      'world',
    )
    expect(r.stderr).toBe('')
    // Every name was read and tried: the count proves the loop ran over all of them.
    expect(r.stdout.split('\n').filter((l) => l.startsWith('MISSING'))).toEqual([])
    expect(r.stdout).toBe(`checked ${commands.length}\n`)
  })

  it('runs a bash skill using awk, which, sort and sed with the same output as the host', async () => {
    for (const cmd of ['awk', 'which', 'sort', 'sed'])
      expect(existsSync(`/usr/bin/${cmd}`)).toBe(true)
    const body = [
      'printf "b 2\\na 5\\nc 3\\n" > "$HOME/in.txt"',
      'sort "$HOME/in.txt" | awk \'{ s += $2; print $1 } END { print "sum", s }\'',
      'which awk sed sort',
      'echo hello world | sed "s/world/sandbox/"',
      'readlink -f "$(which awk)"',
    ].join('\n')
    const inside = await runScriptOnce(
      sandbox.config,
      { 'main.sh': body },
      'main.sh',
      'bash',
      'world',
    )
    expect(inside.stderr).toBe('')
    expect(inside.exitCode).toBe(0)
    const home = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim()
    try {
      const outside = execFileSync('/bin/bash', ['-c', body], {
        env: sandboxBaseEnv(home),
        encoding: 'utf8',
      })
      expect(inside.stdout).toBe(outside)
      expect(outside).toContain('sum 10\n')
    } finally {
      execFileSync('rm', ['-rf', home])
    }
  })

  it('grants link targets only under /etc and /opt, and never a deny entry or synthetic file', async () => {
    const granted = sandbox.config.policy.filesystem.allowRead
    if (existsSync('/etc/alternatives')) expect(granted).toContain('/etc/alternatives')
    const closure = await hostLinkClosure({
      roots: SYSTEM_READ_PATHS,
      visible: SYSTEM_READ_PATHS,
      never: ['/etc/alternatives', '/etc/passwd'],
    })
    for (const p of closure) {
      expect(LINK_TARGET_ROOTS.some((r) => p.startsWith(`${r}/`))).toBe(true)
      expect(p.startsWith('/etc/alternatives')).toBe(false)
      expect(p).not.toBe('/etc/passwd')
    }
  })
})

describe.skipIf(!onLinux)('hostLinkClosure refuses what is not public system configuration', () => {
  it('grants a root-owned world-readable /etc file, and nothing private, per-user or denied', async () => {
    const root = mkdtempSync(join(tmpdir(), 'skillhost-links-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'skillhost-links-out-'))
    try {
      const links: Record<string, string> = {
        public: '/etc/debian_version',
        environment: '/etc/environment', // the host's environment: never
        shadow: '/etc/shadow', // root-owned, not readable by all
        tmp: join(elsewhere, 'x'), // outside /etc and /opt
        home: '/root/.bashrc', // a home
        passwd: '/etc/passwd', // a synthetic /etc file: never
        denied: '/etc/os-release', // a deny entry: never
        relative: '../../../../../../../../etc/debian_version', // climbs out by `..`
      }
      for (const [name, target] of Object.entries(links)) symlinkSync(target, join(root, name))
      const closure = await hostLinkClosure({
        roots: [root],
        visible: [root],
        never: ['/etc/passwd', '/etc/os-release'],
      })
      const expected = ['/etc/debian_version'].filter((p) => existsSync(p))
      expect(closure).toEqual(expected)
    } finally {
      rmSync(root, { recursive: true, force: true })
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  // Needs root to make root-owned folders under /opt; skipped otherwise.
  it.skipIf(process.getuid?.() !== 0 || !existsSync('/opt'))(
    'grants a folder only when everything in it is public: never a group-readable key beside a public file',
    async () => {
      const opt = mkdtempSync('/opt/skillhost-links-')
      const root = mkdtempSync(join(tmpdir(), 'skillhost-links-'))
      try {
        chmodSync(opt, 0o755)
        const make = (rel: string, mode: number) => {
          mkdirSync(join(opt, rel, '..'), { recursive: true })
          writeFileSync(join(opt, rel), 'x\n')
          chmodSync(join(opt, rel), mode)
        }
        make('pub/a.txt', 0o644)
        make('priv/a.txt', 0o644)
        make('priv/key.pem', 0o640) // readable by a group, not by all
        make('two/a.txt', 0o644)
        make('two/b.txt', 0o644)
        make('two/key.pem', 0o640)
        symlinkSync(join(opt, 'pub'), join(root, 'pub'))
        symlinkSync(join(opt, 'priv'), join(root, 'priv'))
        symlinkSync(join(opt, 'two/a.txt'), join(root, 'a'))
        symlinkSync(join(opt, 'two/b.txt'), join(root, 'b'))
        const closure = await hostLinkClosure({ roots: [root], visible: [root], never: [] })
        expect(closure).toEqual([join(opt, 'pub'), join(opt, 'two/a.txt'), join(opt, 'two/b.txt')])
      } finally {
        rmSync(root, { recursive: true, force: true })
        rmSync(opt, { recursive: true, force: true })
      }
    },
  )
})
