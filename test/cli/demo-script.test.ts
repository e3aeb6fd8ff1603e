import { execFile } from 'node:child_process'
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// `npm run demo` is scripts/demo.sh (issue 40.2): its flags reach `skillhost demo`,
// and a current dist/ is not rebuilt. Run on a copy of the checkout (mtimes kept),
// so a rebuild never touches the dist/ other tests use.

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
let copy = ''

beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), 'skillhost-demo-script-'))
  for (const name of ['dist', 'src', 'examples', 'scripts', 'package.json', 'package-lock.json'])
    await cp(join(ROOT, name), join(copy, name), { recursive: true, preserveTimestamps: true })
  for (const name of ['tsconfig.json', 'tsconfig.build.json'])
    await cp(join(ROOT, name), join(copy, name), { preserveTimestamps: true })
  // A folder of links to the checkout's packages, with a fresh hidden lockfile: the
  // script sees its packages installed and never runs `npm ci` here (which would
  // empty a linked node_modules/ of the checkout itself).
  const modules = join(copy, 'node_modules')
  await mkdir(modules)
  for (const name of await readdir(join(ROOT, 'node_modules')))
    if (name !== '.package-lock.json')
      await symlink(join(ROOT, 'node_modules', name), join(modules, name))
  await writeFile(join(modules, '.package-lock.json'), '{}\n')
})
afterAll(async () => {
  await rm(copy, { recursive: true, force: true })
})

function demoScript(
  args: string[],
  path = process.env.PATH,
): Promise<{ code: number | null; stdout: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: path }
  delete env.OPENAI_API_KEY
  delete env.ANTHROPIC_API_KEY
  return new Promise((resolve) => {
    const child = execFile('bash', ['scripts/demo.sh', ...args], { cwd: copy, env }, (_e, out) =>
      resolve({ code: child.exitCode, stdout: out }),
    )
  })
}

describe('scripts/demo.sh (npm run demo)', () => {
  it('passes its flags to the demo and skips the build while dist/ is current', async () => {
    // dist/ as the test command built it: newer than every source.
    const later = new Date(Date.now() + 60_000)
    await writeFile(join(copy, 'dist/.build-stamp'), '')
    await utimes(join(copy, 'dist/.build-stamp'), later, later)
    const r = await demoScript(['--no-scripts'])
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).not.toContain('installing packages')
    expect(r.stdout).toContain('== build is current')
    expect(r.stdout).not.toContain('== building')
    expect(r.stdout).toContain('== skillhost demo --no-scripts')
    // --no-scripts reached the demo: the script tools are off.
    expect(r.stdout).toContain('run_word_count_count was not offered (scripts off on this host)')
  })

  it('rebuilds when a source is newer than dist/', async () => {
    // The decision is the script's; the build itself is tsc's (tested by the test command).
    // An `npx` first on PATH records what the script asks of it instead of running tsc.
    const shim = join(copy, 'shim')
    await mkdir(shim)
    await writeFile(join(shim, 'npx'), `#!/bin/sh\necho "$*" >> "${shim}/calls"\n`, { mode: 0o755 })
    const earlier = new Date(Date.now() - 3_600_000)
    await utimes(join(copy, 'dist/.build-stamp'), earlier, earlier)
    const r = await demoScript(['--no-scripts'], `${shim}:${process.env.PATH}`)
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toContain('== building (tsc -p tsconfig.build.json)')
    expect(r.stdout).not.toContain('== build is current')
    expect(await readFile(join(shim, 'calls'), 'utf8')).toBe('tsc -p tsconfig.build.json\n')
  })
})
