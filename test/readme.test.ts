import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
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

/** The README's quick start is plain enough JavaScript to run as it is printed. */
describe.skipIf(process.platform !== 'linux')('README quick start', () => {
  it('runs against examples/skills and loads word-count with its script tool', async () => {
    const code = codeAfter('## Quick start')
      .replace("'./skills'", JSON.stringify(join(root, 'examples/skills')))
      .replace(
        '// ctx.tools now holds',
        'console.log(JSON.stringify({ tools: ctx.tools.names(), projected: ctx.retrievables.size }))\n  // ctx.tools now holds',
      )
    // Inside the package folder, so `import 'skillhost'` resolves to this package.
    const file = join(root, `.readme-quickstart-${process.pid}.mjs`)
    await writeFile(file, code)
    try {
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [file], { cwd: root }, (err, out, errOut) =>
          err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
        )
      })
      const report = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{')) ?? '{}')
      expect(report.tools).toContain('run_word_count_count')
      expect(report.projected).toBe(1)
      expect(stdout).toContain('allow lifecycle load_skill')
    } finally {
      await rm(file, { force: true })
    }
  })
})
