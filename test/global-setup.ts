import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { stopSharedPostgres } from './helpers/shared-postgres.js'

/**
 * Builds `dist/` before the suite unless it is current (`scripts/build-dist.sh`,
 * the one freshness rule): the CLI tests run the real `skillhost` binary, and
 * worker threads load compiled JavaScript. Type errors do not stop the emit
 * (`--emit-on-type-errors`); `scripts/test.sh` typechecks strictly before this
 * runs, so here only a failure to emit is fatal.
 * Also gives the run a folder for its one shared PostgreSQL server, started by
 * the first file that needs it (test/helpers/shared-postgres.ts), and stops
 * that server when the run ends, and a folder for the run's one shared pip
 * installer (test/helpers/shared-installer.ts), removed when the run ends.
 */
export default function setup(project: TestProject): () => void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const run = spawnSync('bash', ['scripts/build-dist.sh', '--emit-on-type-errors'], {
    cwd: root,
    encoding: 'utf8',
  })
  if (run.status !== 0) {
    throw new Error(`building dist failed (exit ${run.status}):\n${run.stdout}${run.stderr}`)
  }
  const postgresRunDir = mkdtempSync(join(tmpdir(), 'skillhost-pg-run-'))
  project.provide('postgresRunDir', postgresRunDir)
  const installerRunDir = mkdtempSync(join(tmpdir(), 'skillhost-installer-run-'))
  project.provide('installerRunDir', installerRunDir)
  return () => {
    stopSharedPostgres(postgresRunDir)
    rmSync(postgresRunDir, { recursive: true, force: true })
    rmSync(installerRunDir, { recursive: true, force: true })
  }
}
