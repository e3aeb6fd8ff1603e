import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Builds `dist/` before the suite unless it is current (`scripts/build-dist.sh`,
 * the one freshness rule): the CLI tests run the real `skillhost` binary, and
 * worker threads load compiled JavaScript. Type errors do not stop the emit
 * (`--emit-on-type-errors`); `scripts/test.sh` typechecks strictly before this
 * runs, so here only a failure to emit is fatal.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const run = spawnSync('bash', ['scripts/build-dist.sh', '--emit-on-type-errors'], {
    cwd: root,
    encoding: 'utf8',
  })
  if (run.status !== 0) {
    throw new Error(`building dist failed (exit ${run.status}):\n${run.stdout}${run.stderr}`)
  }
}
