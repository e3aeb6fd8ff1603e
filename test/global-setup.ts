import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Builds `dist/` once before the suite: the CLI tests run the real `skillhost`
 * binary, and worker threads load compiled JavaScript. Type errors do not stop
 * the emit (tsc exits 2 and still writes files); `scripts/test.sh` typechecks
 * strictly before this runs, so here only a failure to emit is fatal.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const run = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
  if (run.status !== 0 && run.status !== 2) {
    throw new Error(`building dist failed (tsc exit ${run.status}):\n${run.stdout}${run.stderr}`)
  }
}
