import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(repo, 'dist/cli/main.js')
const wordCount = join(repo, 'examples/skills/word-count')

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, 'run', ...args], { cwd: repo, env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

let tmp = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-run-'))
  const dir = join(tmp, 'probe')
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(
    join(dir, 'SKILL.md'),
    '---\nname: probe\ndescription: Probes the sandbox.\n---\n# Probe\n',
  )
  await writeFile(
    join(dir, 'skillhost.yaml'),
    'scripts:\n  - name: env\n    path: scripts/env.sh\n    description: Prints its environment.\n    interpreter: sh\n  - name: exit\n    path: scripts/exit.sh\n    description: Exits 7.\n    interpreter: sh\n',
  )
  await writeFile(join(dir, 'scripts/env.sh'), 'env; id -u; cat /etc/shadow 2>&1 || true\n')
  await writeFile(join(dir, 'scripts/exit.sh'), 'echo bye; exit 7\n')
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe.skipIf(process.platform !== 'linux')('skillhost run', () => {
  it('runs an example script under the sandbox with typed params', async () => {
    const out = await run([wordCount, 'count', 'samples/sample.txt', '--top', '2', '--lowercase'])
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(/^lines: \d+\nwords: \d+\nchars: \d+\n/)
    expect(out.stdout.trim().split('\n')).toHaveLength(5)
  })

  it('gives the script an empty environment, an unprivileged uid and no host secrets', async () => {
    const out = await run([join(tmp, 'probe'), 'env'], {
      ...process.env,
      SKILLHOST_TEST_SECRET: 'hunter2',
    })
    expect(out.code).toBe(0)
    expect(out.stdout).not.toContain('hunter2')
    expect(out.stdout).not.toContain(tmp)
    expect(out.stdout).toMatch(/^PATH=/m)
    expect(out.stdout).toMatch(/^65534$/m)
    expect(out.stdout).toMatch(/Permission denied|No such file/)
  })

  it("exits with the script's own exit code", async () => {
    const out = await run([join(tmp, 'probe'), 'exit'])
    expect(out.code).toBe(7)
    expect(out.stdout).toBe('bye\n')
  })

  it('refuses unknown scripts and parameters, and option-injection values', async () => {
    const missing = await run([wordCount, 'nope'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("declares no script 'nope' (scripts: count)")
    const unknown = await run([wordCount, 'count', 'x', '--bogus', '1'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('--file, --top, --lowercase')
    const injected = await run([wordCount, 'count', 'samples/sample.txt', '--top', '-1'])
    expect(injected.code).toBe(1)
    expect(injected.stderr).toMatch(/E_SKILL_SCRIPT_INVALID_ARGS|E_TOOL_INVALID_ARGS/)
  })

  it('explains a TMPDIR the sandbox user cannot traverse instead of failing opaquely', async () => {
    const own = await mkdtemp(join(tmpdir(), 'skillhost-run-private-'))
    try {
      const out = await run([join(tmp, 'probe'), 'exit'], { ...process.env, TMPDIR: own })
      expect(out.code).toBe(1)
      expect(out.stderr).toMatch(/E_SANDBOX_UNAVAILABLE: .*cannot traverse .*TMPDIR=\/tmp/)
      expect(await readdir(own)).toEqual([])
    } finally {
      await rm(own, { recursive: true, force: true })
    }
  })

  it('leaves no temporary workspace behind', async () => {
    // A private TMPDIR: other suites create skillhost-* folders in /tmp concurrently.
    const own = await mkdtemp(join(tmpdir(), 'skillhost-run-tmp-'))
    await chmod(own, 0o755)
    try {
      const out = await run([join(tmp, 'probe'), 'exit'], { ...process.env, TMPDIR: own })
      expect(out.code).toBe(7)
      expect(await readdir(own)).toEqual([])
    } finally {
      await rm(own, { recursive: true, force: true })
    }
  })
})
