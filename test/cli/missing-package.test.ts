import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/spawn-serve.js'

// Issue 37.4: a python script that fails on a missing module is explained:
// which python ran (version, its path in the sandbox) and how to provide
// the package. Only a hint: the status stays the script's own.

const bin = join(ROOT, 'dist/cli/main.js')
let tmp = ''
let skill = ''

function run(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, 'run', ...args], { cwd: tmp }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-missing-pkg-'))
  skill = join(tmp, 'needs-pkg')
  await mkdir(join(skill, 'scripts'), { recursive: true })
  await writeFile(join(skill, 'SKILL.md'), '---\nname: needs-pkg\ndescription: T.\n---\n# T\n')
  await writeFile(join(skill, 'scripts/need.py'), 'import skillhost_no_such_module\n')
  await writeFile(join(skill, 'scripts/sub.py'), 'import skillhost_no_such_pkg.sub\n')
  // Catches the error and exits 0: nothing failed, nothing to explain.
  await writeFile(
    join(skill, 'scripts/caught.py'),
    'try:\n    import skillhost_no_such_module\nexcept ImportError as e:\n    import sys; print(f"ModuleNotFoundError: {e}", file=sys.stderr)\n',
  )
  // A shell script that prints python's words and fails: not a python that ran.
  await writeFile(
    join(skill, 'scripts/says.sh'),
    'echo "ModuleNotFoundError: No module named \'pypdf\'" >&2; exit 1\n',
  )
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe.skipIf(process.platform !== 'linux')('a missing python module, explained', () => {
  it('names the python that ran and the fixes; the exit status stays the script’s', async () => {
    const r = await run([skill, 'scripts/need.py'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("ModuleNotFoundError: No module named 'skillhost_no_such_module'")
    const hint = r.stderr.split('\n').find((l) => l.startsWith('[skillhost run: python module'))
    expect(hint).toMatch(
      /^\[skillhost run: python module skillhost_no_such_module is not installed in the python that ran \(python3 3\.\d+\.\d+ at \/\S+ in the sandbox\)\. To provide it: .*--provision.*--interpreter python3=PATH.*scripts\.interpreters.*\]$/,
    )
    // Never a host path: the user's pyenv python is named by its sandbox path.
    expect(hint).not.toContain(homedir())
    expect(hint).not.toContain(tmp)
  })

  it('a dotted import names the package pip installs', async () => {
    const r = await run([skill, 'scripts/sub.py'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('python module skillhost_no_such_pkg is not installed')
  })

  it('says nothing for a run that succeeded, or for a script that is not python', async () => {
    const caught = await run([skill, 'scripts/caught.py'])
    expect(caught.code).toBe(0)
    expect(caught.stderr).toContain('ModuleNotFoundError')
    expect(caught.stderr).not.toContain('[skillhost run: python module')
    const shell = await run([skill, 'scripts/says.sh'])
    expect(shell.code).toBe(1)
    expect(shell.stderr).not.toContain('[skillhost run: python module')
  })
})
