import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
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

  it('runs verbatim in a scratch app that installed the packed tarball (issue 12 item 9)', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'skillhost-quickstart-'))
    try {
      // The tarball a user would get (dist/ is built by the global setup).
      const packed = JSON.parse(
        await exec(
          'npm',
          ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch],
          root,
        ),
      ) as { filename: string }[]
      const tarball = join(scratch, packed[0]!.filename)
      const app = join(scratch, 'app')
      await mkdir(app)
      await writeFile(
        join(app, 'package.json'),
        JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }),
      )
      await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app)
      // The block exactly as printed, run from the app's folder as the README says.
      await writeFile(join(app, 'quickstart.mjs'), codeAfter('## Quick start'))
      expectQuickStartOutput(await exec(process.execPath, ['quickstart.mjs'], app))
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  }, 300_000)
})
