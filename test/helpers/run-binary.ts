import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ROOT } from './spawn-serve.js'

/** The built `skillhost` binary (dist/ is built by the global setup). */
const bin = join(ROOT, 'dist/cli/main.js')

/** `skillhost run ...args` as a user types it in `cwd`: the built binary, its exit code and output. */
export function runIn(
  cwd: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, 'run', ...args],
      { cwd, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

/** A skill under `root` whose one script `scripts/go.sh` is `body`. */
export async function skillWith(root: string, name: string, body: string): Promise<string> {
  const dir = join(root, `skill-${name}`)
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Test.\n---\n# ${name}\n`)
  await writeFile(join(dir, 'scripts/go.sh'), body)
  return dir
}
