import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SkillHostError } from '../../../../src/common/errors.js'
import {
  createScriptSandbox,
  DEFAULT_SANDBOX_LIMITS,
  type ScriptSandbox,
  type SkillScriptConfig,
} from '../../../../src/tiers/scripts/index.js'
import { runSkillScript, settleScriptResult } from '../../../../src/tiers/scripts/internal.js'
import { scriptInterpreters } from '../../../../src/tiers/scripts/policy/script-interpreters.js'
import { files, onLinux, script } from '../../../helpers/sandbox.js'

const PYTHON = '/usr/bin/python3'
const hasPython = existsSync(PYTHON)

/**
 * Every Node binary to try inside the sandbox: the one running the suite, the
 * system one, and those `scripts/test.sh` installed from the npm registry
 * (`SKILLHOST_TEST_NODES`, colon-separated), one per major version.
 */
function nodeBinaries(): Map<string, string> {
  const candidates = [
    process.execPath,
    '/usr/bin/node',
    ...(process.env.SKILLHOST_TEST_NODES ?? '').split(':'),
  ]
  const byMajor = new Map<string, string>()
  for (const bin of candidates) {
    if (bin === '' || !existsSync(bin)) continue
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()
    const major = version.replace(/^v/, '').split('.')[0] as string
    if (!byMajor.has(major)) byMajor.set(major, bin)
  }
  return byMajor
}

async function runIn(
  config: SkillScriptConfig,
  body: Record<string, string>,
  path: string,
  interpreter: string,
) {
  const root = await config.workspace.materialize({ id: 'rt', version: '1' }, files(body))
  try {
    return await runSkillScript(config, {
      skill: 'rt',
      root,
      script: script({ path, interpreter }),
      args: {},
    })
  } finally {
    await config.workspace.dispose(root)
  }
}

// Issue 25, part 1: memory is bounded without breaking runtimes that reserve
// large address ranges (Node 24's V8 code range, WebAssembly guard regions).
describe.skipIf(!onLinux)(
  'bubblewrap sandbox: Node 22, Node 24 and python under the limits',
  () => {
    const nodes = nodeBinaries()
    let dir: string
    let sandbox: ScriptSandbox
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'skillhost-rt-'))
      chmodSync(dir, 0o755)
      // Each node gets its own prefix the sandbox user can traverse, as nvm lays them out.
      const interpreters: Record<string, string> = {}
      for (const [major, bin] of nodes) {
        const prefix = join(dir, `v${major}`)
        mkdirSync(join(prefix, 'bin'), { recursive: true })
        copyFileSync(bin, join(prefix, 'bin', 'node'))
        chmodSync(join(prefix, 'bin', 'node'), 0o755)
        interpreters[`node${major}`] = join(prefix, 'bin', 'node')
      }
      sandbox = await createScriptSandbox({ interpreters: scriptInterpreters(interpreters) })
    })
    afterAll(async () => {
      await sandbox?.dispose()
      if (dir) rmSync(dir, { recursive: true, force: true })
    })

    it('bounds memory by default, not address space', () => {
      expect(DEFAULT_SANDBOX_LIMITS.memoryBytes).toBe(1024 * 1024 * 1024)
      expect(DEFAULT_SANDBOX_LIMITS).not.toHaveProperty('addressSpaceBytes')
    })

    it('runs every node it finds (the suite’s own among them) under the default limits', async () => {
      const running = process.version.replace(/^v/, '').split('.')[0] as string
      expect([...nodes.keys()]).toContain(running)
      for (const major of nodes.keys()) {
        // A wasm memory with a large maximum reserves its whole range up front (plus guards).
        const r = await runIn(
          sandbox.config,
          {
            'hello.mjs':
              'const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 })\nm.grow(1)\nconsole.log("hello", process.version, m.buffer.byteLength)\n',
          },
          'hello.mjs',
          `node${major}`,
        )
        expect({ major, stderr: r.stderr }).toEqual({ major, stderr: '' })
        expect(r.stdout).toMatch(new RegExp(`^hello v${major}\\.\\d+\\.\\d+ 131072\\n$`))
        expect(r.exitCode).toBe(0)
      }
    })

    it('ends a node script that allocates past memoryBytes with E_SKILL_SCRIPT_FAILED', async () => {
      for (const major of nodes.keys()) {
        // What this node maps writable before running anything (Node 24's code
        // range is mapped writable, so it counts), then 192 MiB more.
        const probe = await runIn(
          sandbox.config,
          {
            'data.js':
              'console.log(/VmData:\\s*(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1])\n',
          },
          'data.js',
          `node${major}`,
        )
        const startKib = Number(probe.stdout.trim())
        expect(startKib).toBeGreaterThan(0)
        const limited = {
          ...sandbox.config,
          limits: { memoryBytes: (startKib + 192 * 1024) * 1024 },
        }
        // 64 MiB fits; allocating without end does not. The buffers are
        // zero-filled by fresh mappings and never touched: RLIMIT_DATA counts
        // what is mapped, so the limit is reached without using the memory.
        const fits = await runIn(
          limited,
          { 'fits.js': 'const b = Buffer.alloc(64 << 20)\nconsole.log(b.length)\n' },
          'fits.js',
          `node${major}`,
        )
        expect({ major, stdout: fits.stdout }).toEqual({ major, stdout: `${64 << 20}\n` })
        const r = await runIn(
          limited,
          { 'grow.js': 'const a = []\nfor (;;) a.push(Buffer.alloc(16 << 20))\n' },
          'grow.js',
          `node${major}`,
        )
        expect(r.timedOut).toBe(false)
        // Either the allocation throws (RangeError, exit 1) or V8 itself cannot
        // grow its heap and aborts (SIGTRAP or SIGABRT: 128 + 5 or 6).
        expect(r.stderr).toMatch(/Array buffer allocation failed|JavaScript heap out of memory/)
        expect([1, 133, 134]).toContain(r.exitCode)
        let err: unknown
        try {
          settleScriptResult(r, { retrievableId: 'ret_mem' })
        } catch (e) {
          err = e
        }
        expect(SkillHostError.is(err, 'E_SKILL_SCRIPT_FAILED')).toBe(true)
      }
    })

    it.skipIf(!hasPython)(
      'ends a python script that allocates past memoryBytes with E_SKILL_SCRIPT_FAILED',
      async () => {
        const limited = { ...sandbox.config, limits: { memoryBytes: 256 * 1024 * 1024 } }
        // bytes(n) is calloc'ed: mapped, counted by RLIMIT_DATA, never touched.
        const body =
          'a = []\nb = bytes(64 << 20)\nprint(len(b))\nwhile True:\n    a.append(bytes(32 << 20))\n'
        const r = await runIn(limited, { 'grow.py': body }, 'grow.py', 'python3')
        expect(r.stdout).toBe(`${64 << 20}\n`)
        expect(r.stderr).toContain('MemoryError')
        expect(r.exitCode).toBe(1)
        let err: unknown
        try {
          settleScriptResult(r, { retrievableId: 'ret_mem' })
        } catch (e) {
          err = e
        }
        expect(SkillHostError.is(err, 'E_SKILL_SCRIPT_FAILED')).toBe(true)
        // Without the lower limit the same first allocation is unremarkable.
        const ok = await runIn(
          sandbox.config,
          { 'ok.py': 'print(len(bytes(64 << 20)))\n' },
          'ok.py',
          'python3',
        )
        expect(ok.stdout).toBe(`${64 << 20}\n`)
      },
    )

    it('still applies an address-space limit a deployer sets explicitly', async () => {
      const limited = { ...sandbox.config, limits: { addressSpaceBytes: 256 * 1024 * 1024 } }
      const r = await runIn(limited, { 'as.sh': 'ulimit -v; ulimit -d' }, 'as.sh', 'sh')
      expect(r.stdout).toBe(`${256 * 1024}\n${1024 * 1024}\n`)
    })
  },
)
