import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
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
import {
  createScriptSandbox,
  DEFAULT_SANDBOX_LIMITS,
  type ScriptSandbox,
} from '../../../../src/tiers/scripts/index.js'
import { scriptInterpreters } from '../../../../src/tiers/scripts/policy/script-interpreters.js'
import { buildBwrapCommand } from '../../../../src/tiers/scripts/sandbox/bwrap-args.js'
import {
  hostCertificatePaths,
  hostToolConfigPaths,
} from '../../../../src/tiers/scripts/sandbox/minimal-etc.js'
import { codeOf, rejectsWith } from '../../../helpers/error-code.js'
import { neutralTempDir } from '../../../helpers/reachable-temp.js'
import { makeRig, onLinux, type Rig, runScriptOnce } from '../../../helpers/sandbox.js'

const PYTHON = '/usr/bin/python3'
const hasPython = existsSync(PYTHON)

/** A fresh directory the sandbox identity (nobody, when the tests run as root) can traverse. */
function openDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o755)
  return dir
}

// Issue 11, part 4: the environment real interpreters need, still contained.
describe.skipIf(!onLinux)('bubblewrap sandbox: what a script sees in /etc and its env', () => {
  let rig: Rig
  beforeAll(async () => {
    rig = await makeRig()
  })
  afterAll(async () => {
    await rig?.cleanup()
  })
  const sh = (body: string) =>
    runScriptOnce(rig.config, { 'main.sh': body }, 'main.sh', 'sh', 'env')

  it('names the sandbox uid and gid in a generated /etc/passwd and /etc/group', async () => {
    const r = await sh('id -un; id -gn; id -u; cat /etc/passwd /etc/group')
    expect(r.exitCode).toBe(0)
    const [user, group, uid, ...etc] = r.stdout.trim().split('\n')
    expect(user).toBe('sandbox')
    expect(group).toBe('sandbox')
    expect(uid).toBe('65534')
    // Only the sandbox user: no host account leaks through.
    expect(etc).toEqual([
      expect.stringMatching(/^sandbox:x:65534:65534:sandbox:\/[^:]*:\/usr\/sbin\/nologin$/),
      'sandbox:x:65534:',
    ])
  })

  it.skipIf(!hasPython)('lets python look the user up with pwd and getpass', async () => {
    const r = await runScriptOnce(
      rig.config,
      {
        'who.py':
          'import getpass, os, pwd\nprint(pwd.getpwuid(os.getuid()).pw_name, getpass.getuser())\n',
      },
      'who.py',
      'python',
    )
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('sandbox sandbox\n')
  })

  it('has localhost, a files-only nsswitch, LANG=C.UTF-8 and no resolver', async () => {
    const r = await sh(
      [
        'echo "LANG=$LANG"',
        'cat /etc/hosts /etc/nsswitch.conf',
        '[ -e /etc/resolv.conf ] && echo RESOLV-PRESENT',
        'ls /etc',
      ].join('\n'),
    )
    expect(r.stdout).toContain('LANG=C.UTF-8\n')
    expect(r.stdout).toMatch(/^127\.0\.0\.1\tlocalhost/m)
    expect(r.stdout).toMatch(/^hosts: files$/m)
    expect(r.stdout).not.toMatch(/dns/)
    expect(r.stdout).not.toContain('RESOLV-PRESENT')
    const listed = r.stdout.trim().split('\n').slice(-4)
    expect(listed).toEqual(['group', 'hosts', 'nsswitch.conf', 'passwd'])
  })

  it('shows no host file of /etc: shadow, hostname, machine-id, os-release', async () => {
    const targets = ['/etc/shadow', '/etc/hostname', '/etc/machine-id', '/etc/os-release']
    const body = targets.map((t) => `[ -e '${t}' ] && echo "SEEN ${t}"`).join('\n')
    const r = await sh(`${body}\necho done`)
    expect(r.stdout).toBe('done\n')
  })

  it('passes the /etc files on pipes: no host fd and no temp file is left behind', async () => {
    const fdCount = () => readdirSync('/proc/self/fd').length
    const privateTmp = await neutralTempDir('skillhost-etc-tmp-')
    const saved = process.env.TMPDIR
    process.env.TMPDIR = privateTmp
    try {
      await sh('true') // warm up whatever the runtime opens once
      const before = fdCount()
      for (let i = 0; i < 5; i++) {
        const r = await sh('ls /proc/self/fd | tr "\\n" " "; cat /etc/passwd >/dev/null')
        // Inside: only stdin/out/err (and the fd ls itself opens).
        expect(r.stdout.trim().split(' ').length).toBeLessThanOrEqual(4)
      }
      expect(fdCount()).toBe(before)
      expect(readdirSync(privateTmp)).toEqual([])
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
      rmSync(privateTmp, { recursive: true, force: true })
    }
  })
})

describe('buildBwrapCommand: the minimal /etc', () => {
  const base = {
    limits: { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: 5 },
    prlimitPath: '/usr/bin/prlimit',
    fdCloserShell: '/usr/bin/bash',
    sandboxUid: 1234,
    sandboxGid: 4321,
    disableUserns: true,
    statusFd: 3,
  }
  const request = (allowRead: string[]) => ({
    argv: ['/bin/true'],
    cwd: '/',
    policy: {
      filesystem: { allowRead, denyRead: [], allowWrite: [], denyWrite: [] },
      network: { allowedDomains: [] },
    },
    env: {},
    timeoutMs: 1000,
    maxOutputBytes: 10,
  })

  it('mounts the four files read-only from consecutive fds, naming the sandbox ids', () => {
    const cmd = buildBwrapCommand({
      ...base,
      request: request(['/usr']),
      facts: new Map([['/usr', { kind: 'dir' as const }]]),
      firstDataFd: 7,
    })
    expect(cmd.dataFiles.map((f) => [f.fd, f.path])).toEqual([
      [7, '/etc/passwd'],
      [8, '/etc/group'],
      [9, '/etc/hosts'],
      [10, '/etc/nsswitch.conf'],
    ])
    expect(cmd.dataFiles[0]?.content).toMatch(/^sandbox:x:1234:4321:/)
    const i = cmd.args.indexOf('/etc/passwd')
    expect(cmd.args.slice(i - 4, i + 1)).toEqual(['--perms', '0444', '--file', '7', '/etc/passwd'])
    expect(cmd.args).toContain('LANG')
    expect(cmd.args).not.toContain('/etc/resolv.conf')
  })

  it('leaves the files out when the policy grants the host /etc (the policy is what is seen)', () => {
    for (const grant of ['/etc', '/']) {
      const cmd = buildBwrapCommand({
        ...base,
        request: request([grant]),
        facts: new Map([[grant, { kind: 'dir' as const }]]),
        firstDataFd: 5,
      })
      expect(cmd.dataFiles).toEqual([])
      expect(cmd.args).not.toContain('--file')
    }
  })

  it('references no extra fd without firstDataFd', () => {
    const cmd = buildBwrapCommand({ ...base, request: request([]), facts: new Map() })
    expect(cmd.dataFiles).toEqual([])
    expect(cmd.args).not.toContain('--file')
  })
})

describe.skipIf(!onLinux)('createScriptSandbox: certificates and interpreters outside /usr', () => {
  let dir: string
  let sandbox: ScriptSandbox
  let venv: string
  let nodePrefix: string

  beforeAll(async () => {
    dir = openDir('skillhost-interp-')
    venv = join(dir, 'venv')
    if (hasPython) {
      execFileSync(PYTHON, ['-m', 'venv', '--without-pip', venv])
      const lib = join(venv, 'lib')
      const site = join(lib, readdirSync(lib).find((d) => d.startsWith('python')) as string)
      writeFileSync(join(site, 'site-packages', 'only_in_venv.py'), 'ANSWER = 42\n')
    }
    // An nvm-style node: its own copy under <prefix>/bin, outside the system directories.
    nodePrefix = join(dir, 'nvm', 'versions', 'node', 'v-test')
    mkdirSync(join(nodePrefix, 'bin'), { recursive: true })
    copyFileSync(process.execPath, join(nodePrefix, 'bin', 'node'))
    chmodSync(join(nodePrefix, 'bin', 'node'), 0o755)
    sandbox = await createScriptSandbox({
      interpreters: scriptInterpreters({
        ...(hasPython ? { venvpy: join(venv, 'bin', 'python') } : {}),
        nvmnode: join(nodePrefix, 'bin', 'node'),
      }),
    })
  })
  afterAll(async () => {
    await sandbox?.dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  it('accepts python3, python, node, bash and sh by default', () => {
    const names = Object.keys(scriptInterpreters())
    for (const name of ['sh', 'bash', 'python', 'python3', 'node']) {
      if (name.startsWith('python') && !hasPython) continue
      expect(names).toContain(name)
    }
    expect(scriptInterpreters().python).toEqual(scriptInterpreters().python3)
  })

  it('grants the host certificates through the policy, and python loads them', async () => {
    const certs = hostCertificatePaths()
    for (const p of certs) {
      expect(sandbox.config.policy.filesystem.allowRead).toContain(p)
      expect(sandbox.config.interpreterReadPaths).toContain(p)
    }
    if (!hasPython) return
    const r = await runScriptOnce(
      sandbox.config,
      {
        'tls.py':
          'import ssl\nctx = ssl.create_default_context()\nprint(ctx.cert_store_stats()["x509_ca"])\n',
      },
      'tls.py',
      'python3',
    )
    expect(r.stderr).toBe('')
    const loaded = Number(r.stdout.trim())
    // A CA bundle file is loaded eagerly; with none on the host there is nothing to load.
    const bundle = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt']
    if (bundle.some((b) => existsSync(b))) expect(loaded).toBeGreaterThan(0)
    else expect(loaded).toBeGreaterThanOrEqual(0)
  })

  it('grants fontconfig its configuration: a font is matched inside as outside', async () => {
    for (const p of hostToolConfigPaths()) {
      expect(sandbox.config.policy.filesystem.allowRead).toContain(p)
      expect(sandbox.config.interpreterReadPaths).toContain(p)
    }
    // scripts/test.sh installs fontconfig; a machine without it has nothing to compare.
    if (!existsSync('/usr/bin/fc-match') || !existsSync('/etc/fonts')) return
    const outside = execFileSync('/usr/bin/fc-match', ['sans'], { encoding: 'utf8' })
    const r = await runScriptOnce(
      sandbox.config,
      { 'fonts.sh': '/usr/bin/fc-match sans\n' },
      'fonts.sh',
      'sh',
    )
    // Without /etc/fonts fontconfig says it cannot load its configuration and picks another font.
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(outside)
  })

  it.skipIf(!hasPython)(
    "runs a venv's python with sys.prefix at the venv's neutral path and its own site-packages",
    async () => {
      expect(sandbox.config.policy.filesystem.allowRead).toContain(venv)
      expect(sandbox.config.interpreterReadPaths).toContain(venv)
      const r = await runScriptOnce(
        sandbox.config,
        {
          'venv.py':
            'import sys, only_in_venv\nprint(sys.prefix)\nprint(sys.prefix != sys.base_prefix, only_in_venv.ANSWER)\n',
        },
        'venv.py',
        'venvpy',
      )
      expect(r.stderr).toBe('')
      // Seen at a neutral path (issue 23): the venv runs wherever it lives on the host.
      expect(r.stdout).toBe('/opt/skillhost/venv\nTrue 42\n')
      // The system python does not see the venv's package.
      const plain = await runScriptOnce(
        sandbox.config,
        { 'plain.py': 'import only_in_venv\n' },
        'plain.py',
        'python',
      )
      expect(plain.exitCode).not.toBe(0)
      expect(plain.stderr).toContain('ModuleNotFoundError')
    },
  )

  it('runs an nvm-style node from a neutral path, its installation bound read-only', async () => {
    expect(sandbox.config.policy.filesystem.allowRead).toContain(nodePrefix)
    const r = await runScriptOnce(
      sandbox.config,
      {
        'n.js':
          'const fs = require("node:fs")\nconsole.log(process.execPath)\ntry { fs.writeFileSync(process.execPath + ".x", "") ; console.log("WROTE") } catch (e) { console.log(e.code) }\n',
      },
      'n.js',
      'nvmnode',
    )
    expect(r.stderr).toBe('')
    // Seen at /opt/skillhost/node/<version>, never at its host path (issue 37.7);
    // `-2` when the PATH's node of the same version took the first.
    const seen = sandbox.config.interpreterViews?.nvmnode?.argv[0]
    expect(seen).toMatch(
      new RegExp(`^/opt/skillhost/node/${process.version.slice(1)}(-\\d+)?/bin/node$`),
    )
    expect(r.stdout).toBe(`${seen}\nEROFS\n`)
  })

  it('refuses an interpreter whose path does not exist, is relative or has an odd name', async () => {
    const missing = join(dir, 'nope', 'bin', 'python')
    expect(codeOf(() => scriptInterpreters({ py: missing }))).toBe('E_INVALID_SKILLS_CONFIG')
    await rejectsWith(
      createScriptSandbox({ interpreters: { py: [missing] } }),
      'E_INVALID_SKILLS_CONFIG',
    )
    await rejectsWith(
      createScriptSandbox({ interpreters: { py: ['venv/bin/python'] } }),
      'E_INVALID_SKILLS_CONFIG',
    )
    for (const name of ['py thon', 'py;rm', '../py', '-py', '', 'x'.repeat(33)]) {
      expect(codeOf(() => scriptInterpreters({ [name]: process.execPath }))).toBe(
        'E_INVALID_SKILLS_CONFIG',
      )
    }
    expect(codeOf(() => scriptInterpreters({ x: dir }))).toBe('E_INVALID_SKILLS_CONFIG')
  })

  it('refuses read paths that are /, hold the home or the base, or lie in a deny entry', async () => {
    const privateTmp = await neutralTempDir('skillhost-refusals-tmp-')
    const saved = process.env.TMPDIR
    process.env.TMPDIR = privateTmp
    try {
      const secret = join(dir, 'secrets')
      mkdirSync(join(secret, 'inner'), { recursive: true })
      const cases: [readonly string[], readonly string[], string][] = [
        [['/'], [], 'E_INVALID_SKILLS_CONFIG'],
        [['relative/dir'], [], 'E_INVALID_SKILLS_CONFIG'],
        [[join(dir, 'absent')], [], 'E_INVALID_SKILLS_CONFIG'],
        [[tmpdir()], [], 'E_INVALID_SKILLS_CONFIG'], // holds the fresh base directory
        [[join(secret, 'inner')], [secret], 'E_SKILL_SCRIPT_POLICY_WIDENED'],
        [[secret], [secret], 'E_SKILL_SCRIPT_POLICY_WIDENED'],
      ]
      for (const [readPaths, denyRead, code] of cases) {
        expect(await codeOf(() => createScriptSandbox({ readPaths, denyRead }))).toBe(code)
      }
      // Every refused setup removed its base directory.
      expect(readdirSync(privateTmp)).toEqual([])
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
      rmSync(privateTmp, { recursive: true, force: true })
    }
  })

  it('masks a session deny entry inside a granted read path', async () => {
    const shared = openDir('skillhost-shared-')
    mkdirSync(join(shared, 'keys'))
    writeFileSync(join(shared, 'keys', 'id'), 'private')
    writeFileSync(join(shared, 'data.txt'), 'public')
    chmodSync(join(shared, 'keys'), 0o755)
    const sb = await createScriptSandbox({ readPaths: [shared], denyRead: [join(shared, 'keys')] })
    try {
      expect(sb.config.policy.filesystem.allowRead).toContain(shared)
      const r = await runScriptOnce(
        sb.config,
        { 'r.sh': `cat '${shared}/data.txt'; cat '${shared}/keys/id' 2>/dev/null || echo DENIED` },
        'r.sh',
        'sh',
      )
      expect(r.stdout).toBe('publicDENIED\n')
    } finally {
      await sb.dispose()
      rmSync(shared, { recursive: true, force: true })
    }
  })

  it('follows a symlinked interpreter to its real installation, and binds only that', async () => {
    const linkPrefix = join(dir, 'links')
    mkdirSync(join(linkPrefix, 'bin'), { recursive: true })
    const link = join(linkPrefix, 'bin', 'node')
    symlinkSync(join(nodePrefix, 'bin', 'node'), link)
    const sb = await createScriptSandbox({ interpreters: scriptInterpreters({ ln: link }) })
    try {
      const allow = sb.config.policy.filesystem.allowRead
      expect(allow).not.toContain(linkPrefix)
      expect(allow).toContain(nodePrefix)
      const r = await runScriptOnce(
        sb.config,
        { 'v.js': 'console.log(process.execPath)' },
        'v.js',
        'ln',
      )
      expect(r.stdout).toBe(`${sb.config.interpreterViews?.ln?.argv[0]}\n`)
      expect(r.stdout).toMatch(/^\/opt\/skillhost\/node\//)
    } finally {
      await sb.dispose()
    }
  })
})
