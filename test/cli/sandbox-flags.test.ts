import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseServeOptions } from '../../src/cli/serve/serve-options.js'
import { createServeRuntime } from '../../src/cli/serve/serve-runtime.js'
import { UsageError } from '../../src/cli/shared/parse-args.js'
import { parseSandboxFlags } from '../../src/cli/shared/sandbox-flags.js'
import { sandboxOptionsFrom } from '../../src/cli/shared/sandbox-options.js'
import { parseSkillLock } from '../../src/sources/index.js'
import { codeOf } from '../helpers/error-code.js'
import { warmSandboxesOf } from '../helpers/proc-scan.js'
import { connectStdio } from '../helpers/serve-clients.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(repo, 'dist/cli/main.js')
const PYTHON = '/usr/bin/python3'
const hasPython = existsSync(PYTHON)

function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: repo, env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** A skill folder whose skillhost.yaml declares `scripts`: name → [file, interpreter, body]. */
async function skill(dir: string, name: string, scripts: Record<string, [string, string, string]>) {
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: A test skill.\n---\n`)
  const decls = Object.entries(scripts).map(
    ([n, [file, interpreter]]) =>
      `  - name: ${n}\n    path: scripts/${file}\n    description: ${n}.\n    interpreter: ${interpreter}\n`,
  )
  await writeFile(join(dir, 'skillhost.yaml'), `scripts:\n${decls.join('')}`)
  for (const [file, , body] of Object.values(scripts))
    await writeFile(join(dir, 'scripts', file), body)
}

let tmp = ''
let venv = ''
let shared = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-flags-'))
  // The sandbox runs as nobody when the tests run as root: it must traverse these.
  await chmod(tmp, 0o755)
  venv = join(tmp, 'venv')
  if (hasPython) execFileSync(PYTHON, ['-m', 'venv', '--without-pip', venv])
  shared = join(tmp, 'shared')
  await mkdir(shared)
  await writeFile(join(shared, 'data.txt'), 'from the read path\n')
  await skill(join(tmp, 'skills', 'interp'), 'interp', {
    p3: ['p3.py', 'python3', 'import sys\nprint("python3 ok", sys.version_info[0])\n'],
    venv: ['venv.py', 'venvpy', 'import sys\nprint(sys.prefix)\n'],
    read: ['read', 'sh', `cat '${shared}/data.txt'\n`],
  })
  await skill(join(tmp, 'skills', 'rubyish'), 'rubyish', {
    x: ['x.rb', 'ruby', 'puts 1\n'],
  })
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe('--interpreter and --read-path parsing (serve, run, validate)', () => {
  it('takes repeatable NAME=PATH and DIR values, checked by the sandbox rule', () => {
    const flags = parseSandboxFlags({
      interpreter: [`a=${process.execPath}`, `b.2=${process.execPath}`],
      'read-path': [tmp, `${tmp}/`],
    })
    expect({ ...flags.interpreters }).toEqual({ a: process.execPath, 'b.2': process.execPath })
    expect(flags.readPaths).toEqual([tmp, tmp])
    const o = parseServeOptions([
      '--interpreter',
      `node2=${process.execPath}`,
      `--read-path=${tmp}`,
      'examples/skills',
    ])
    expect({ ...o.sandbox.interpreters }).toEqual({ node2: process.execPath })
    expect(o.sandbox.readPaths).toEqual([tmp])
  })

  it('--no-warm-sandbox turns the warm sandbox off; without it serve keeps the default (on)', () => {
    expect(parseServeOptions(['--no-warm-sandbox', 'examples/skills']).warmSandbox).toBe(false)
    expect(parseServeOptions(['examples/skills']).warmSandbox).toBeUndefined()
  })

  it('refuses relative, missing and non-executable paths, odd names and / as usage errors', () => {
    const bad: [string, string][] = [
      ['interpreter', 'py=venv/bin/python'],
      ['interpreter', `py=${join(tmp, 'missing', 'bin', 'python')}`],
      ['interpreter', `py=${tmp}`],
      ['interpreter', `py=${join(shared, 'data.txt')}`],
      ['interpreter', `p y=${process.execPath}`],
      ['interpreter', `py;rm=${process.execPath}`],
      ['interpreter', `../x=${process.execPath}`],
      ['interpreter', `=${process.execPath}`],
      ['interpreter', 'no-equals-sign'],
      ['read-path', '/'],
      ['read-path', 'relative'],
      ['read-path', join(tmp, 'absent')],
    ]
    for (const [flag, value] of bad) {
      expect(() => parseSandboxFlags({ [flag]: [value] }), `${flag} ${value}`).toThrow(UsageError)
      expect(() => parseServeOptions([`--${flag}`, value, 'examples/skills'])).toThrow(UsageError)
    }
  })
})

describe('--locked with --provision (run and serve share sandboxOptionsFrom)', () => {
  it('builds only from the pins: locked, with the pinned sets, and not without --provision', () => {
    const lock = parseSkillLock(
      JSON.stringify({
        lockfileVersion: 1,
        skills: {
          pdf: {
            digest: `sha256-${'A'.repeat(43)}=`,
            source: 'skills/pdf',
            environments: [
              {
                requirements: ['pypdf>=4', 'attrs'],
                packages: [{ name: 'pypdf', version: '4.3.1', sha256: 'a'.repeat(64) }],
              },
            ],
          },
        },
      }),
    )
    const flags = parseSandboxFlags({}, true)
    const provision = sandboxOptionsFrom(flags, lock).provision
    expect(provision?.locked).toBe(true)
    expect([...(provision?.pins?.keys() ?? [])]).toEqual(['attrs\npypdf>=4'])
    expect(sandboxOptionsFrom(flags).provision?.locked).toBeUndefined()
    expect(sandboxOptionsFrom(parseSandboxFlags({}), lock).provision).toBeUndefined()
  })
})

describe.skipIf(process.platform !== 'linux')('skillhost run and serve with sandbox flags', () => {
  it.skipIf(!hasPython)(
    'runs a script declaring interpreter python3 (the default list)',
    async () => {
      const out = await cli(['run', join(tmp, 'skills', 'interp'), 'p3'])
      expect(out.stderr).toBe('')
      expect(out.stdout).toBe('python3 ok 3\n')
      expect(out.code).toBe(0)
    },
  )

  it.skipIf(!hasPython)('runs a venv interpreter given by --interpreter', async () => {
    const dir = join(tmp, 'skills', 'interp')
    const without = await cli(['run', dir, 'venv'])
    expect(without.code).toBe(69)
    expect(without.stderr).toContain("interpreter 'venvpy'")
    const out = await cli([
      'run',
      dir,
      'venv',
      '--interpreter',
      `venvpy=${join(venv, 'bin', 'python')}`,
    ])
    expect(out.stderr).toBe('')
    // The venv is seen at a neutral path, wherever it lives (issue 23).
    expect(out.stdout).toBe('/opt/skillhost/venv\n')
  })

  it('lets a script read a --read-path directory, and nothing of it without the flag', async () => {
    const dir = join(tmp, 'skills', 'interp')
    const out = await cli(['run', dir, 'read', '--read-path', shared])
    expect(out.stdout).toBe('from the read path\n')
    expect(out.code).toBe(0)
    const without = await cli(['run', dir, 'read'])
    expect(without.stdout).toBe('')
    expect(without.code).not.toBe(0)
  })

  it('exits 64 (usage) on a bad --interpreter or --read-path, naming the flag', async () => {
    const dir = join(tmp, 'skills', 'interp')
    for (const args of [
      ['--interpreter', 'venvpy=venv/bin/python'],
      ['--interpreter', `venvpy=${join(tmp, 'nope')}`],
      ['--interpreter', `v$py=${process.execPath}`],
      ['--read-path', '/'],
    ]) {
      const out = await cli(['run', dir, 'read', ...args])
      expect(out.code, args.join(' ')).toBe(64)
      expect(out.stderr).toContain(`skillhost run: ${args[0]}:`)
    }
  })

  it('refuses a --read-path inside a session deny entry: the policy check, before any call', async () => {
    const home = join(tmp, 'home')
    await mkdir(join(home, '.ssh', 'keys'), { recursive: true })
    const out = await cli(
      ['run', join(tmp, 'skills', 'interp'), 'read', '--read-path', join(home, '.ssh', 'keys')],
      { ...process.env, HOME: home },
    )
    expect(out.code).toBe(69)
    expect(out.stderr).toContain('E_SKILL_SCRIPT_POLICY_WIDENED')
    expect(out.stdout).toBe('')
  })

  it('fails serve instead of turning scripts off when the flags make the setup invalid', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'skillhost-flags-state-'))
    try {
      const lines: string[] = []
      const code = await codeOf(() =>
        createServeRuntime({
          roots: [join(tmp, 'skills')],
          stateDir,
          importModules: false,
          scripts: true,
          scriptSandbox: { readPaths: [tmpdir()] },
          gate: async () => undefined,
          log: (l) => lines.push(l),
        }),
      )
      expect(code).toBe('E_INVALID_SKILLS_CONFIG')
      expect(lines.join('\n')).not.toContain('scripts off')
    } finally {
      await rm(stateDir, { recursive: true, force: true })
    }
  })

  it('serve --no-warm-sandbox reaches the sandbox: idle after one script call, serve keeps a warm sandbox only without it', async () => {
    const root = join(tmp, 'warm-skills')
    await skill(join(root, 'warm'), 'warm', { hi: ['hi.sh', 'sh', 'echo hi\n'] })
    const home = join(tmp, 'warm-home')
    await mkdir(home, { recursive: true })
    const kept: Record<string, number> = {}
    for (const [label, flags] of [
      ['default', []],
      ['--no-warm-sandbox', ['--no-warm-sandbox']],
    ] as const) {
      const state = await mkdtemp(join(tmp, 'warm-state-'))
      const args = [...flags, '--state-dir', state, '--interpreter', 'sh=/bin/sh', root]
      const { client } = await connectStdio(args, { cwd: repo, home, clientName: 'warm-flag' })
      try {
        await client.callTool({ name: 'load_skill', arguments: { skill: 'warm' } })
        const ran = (await client.callTool({
          name: 'run_warm_hi',
          arguments: {},
        })) as CallToolResult
        expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy()
        expect(JSON.stringify(ran.content)).toContain('hi')
        // The serve process's own warm sandboxes (a bwrap it started, named after its warm folder).
        const pid = (client.transport as StdioClientTransport).pid as number
        kept[label] = warmSandboxesOf(pid).length
      } finally {
        await client.close()
      }
    }
    expect(kept).toEqual({ default: 1, '--no-warm-sandbox': 0 })
  })

  it('lists the flags in the help of serve and run', async () => {
    for (const cmd of ['serve', 'run']) {
      const out = await cli([cmd, '--help'])
      const text = out.stdout + out.stderr
      expect(text).toContain('--interpreter NAME=PATH')
      expect(text).toContain('--read-path DIR')
    }
  })
})

describe('skillhost validate: interpreters run would refuse', () => {
  it('flags a script whose interpreter is not in the allow-list run uses', async () => {
    const ok = await cli(['validate', join(tmp, 'skills', 'interp')])
    // venvpy is not a default name: validate says so, as run would.
    expect(ok.code).toBe(1)
    expect(ok.stdout).toContain("declares interpreter 'venvpy'")
    expect(ok.stdout).not.toContain("'python3'")
    const ruby = await cli(['validate', '--json', join(tmp, 'skills', 'rubyish')])
    expect(ruby.code).toBe(1)
    const report = JSON.parse(ruby.stdout) as {
      ok: boolean
      skills: { valid: boolean; errors: string[] }[]
    }
    expect(report.ok).toBe(false)
    expect(report.skills[0]?.errors.join('\n')).toMatch(
      /interpreter 'ruby'.*allowed: .*python3.*--interpreter ruby=PATH/,
    )
  })

  it('accepts the names --interpreter adds, as run and serve would', async () => {
    const out = await cli([
      'validate',
      '--interpreter',
      `venvpy=${process.execPath}`,
      join(tmp, 'skills', 'interp'),
    ])
    expect(out.stdout).toMatch(/^ok\s+interp/m)
    expect(out.code).toBe(0)
    const bad = await cli(['validate', '--interpreter', 'ruby=ruby', join(tmp, 'skills')])
    expect(bad.code).toBe(2)
  })

  it('still passes the example skills', async () => {
    const out = await cli(['validate', join(repo, 'examples', 'skills')])
    expect(out.code).toBe(0)
    expect(await readdir(join(repo, 'examples', 'skills'))).not.toHaveLength(0)
  })
})
