import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The first fenced TypeScript block after `heading` in the README. */
function codeAfter(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const from = readme.indexOf(heading)
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(from))
  if (from === -1 || !match?.[1]) throw new Error(`no ts block after ${heading}`)
  return match[1]
}

/** The first fenced shell block after `heading` in the README. */
function shellAfter(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const from = readme.indexOf(heading)
  const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(from))
  if (from === -1 || !match?.[1]) throw new Error(`no sh block after ${heading}`)
  return match[1]
}

/** Runs a command, resolving to its stdout; a failure carries its stderr. */
function exec(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, out, errOut) =>
      err
        ? reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${errOut}`))
        : resolve(out),
    )
  })
}

/** What the quick start prints, as its text promises: the catalog size, the gate, the tools. */
function expectQuickStartOutput(stdout: string): void {
  expect(stdout).toMatch(/^5 skills \[\]$/m)
  expect(stdout).toContain('allow lifecycle load_skill')
  expect(stdout).toContain("'run_word_count_count'")
}

/** The README's quick start is plain enough JavaScript to run as it is printed. */
describe.skipIf(process.platform !== 'linux')('README quick start', () => {
  it('runs in this checkout against examples/skills and loads word-count with its script tool', async () => {
    const code = codeAfter('## Quick start').replace(
      "'node_modules/skillhost/examples/skills'",
      JSON.stringify(join(root, 'examples/skills')),
    )
    // Inside the package folder, so `import 'skillhost'` resolves to this package.
    const file = join(root, `.readme-quickstart-${process.pid}.mjs`)
    await writeFile(file, code)
    try {
      expectQuickStartOutput(await exec(process.execPath, [file], root))
    } finally {
      await rm(file, { force: true })
    }
  })

  it('the Install block, as printed, packs this clone and installs it in a fresh app; the quick start runs there (issue 40.1)', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'skillhost-install-'))
    // The layout the README names: the clone as skillhost/, the app as my-app/.
    await symlink(root, join(scratch, 'skillhost'))
    const app = join(scratch, 'my-app')
    await mkdir(app)
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'my-app', private: true, type: 'module' }),
    )
    // Every line but apt-get's (the test command installed bubblewrap already).
    const block = shellAfter('## Install')
      .split('\n')
      .filter((line) => !line.startsWith('sudo '))
      .join('\n')
    try {
      await exec('bash', ['-euo', 'pipefail', '-c', block], scratch)
      // The block exactly as printed, run from the app's folder as the README says.
      await writeFile(join(app, 'quickstart.mjs'), codeAfter('## Quick start'))
      expectQuickStartOutput(await exec(process.execPath, ['quickstart.mjs'], app))
    } finally {
      // npm pack wrote the tarball into the clone itself.
      for (const name of await readdir(root))
        if (/^skillhost-.*\.tgz$/.test(name)) await rm(join(root, name), { force: true })
      await rm(scratch, { recursive: true, force: true })
    }
  }, 300_000)
})
