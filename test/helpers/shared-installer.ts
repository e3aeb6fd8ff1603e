import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type {} from 'vitest'
import { BUILD_TIMEOUT_MS } from '../../src/tiers/scripts/deps/build-lock.js'
import { pipInstaller } from '../../src/tiers/scripts/deps/pip-installer.js'
import { describePython, type PythonLayout } from '../../src/tiers/scripts/policy/user-python.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** This vitest run's folder for its one shared env cache installer (test/global-setup.ts). */
    installerRunDir: string
  }
}

/**
 * Makes `cacheDir` (absent before) a new env cache that already holds this
 * vitest run's pip installer for `python` (`installer/<key>/`, issue 39
 * item 2), and returns it. The installer is built once per run, by the first
 * file that asks, under the product's own installer lock (`pipInstaller`,
 * which a second file waits on), then copied whole into each cache: what a
 * cache holds after any earlier build for that interpreter. For a test whose
 * subject is a set's build (its race, failure, cancel, span or progress), not
 * the installer's: a fresh cache would unpack and byte-compile the bundled
 * pip again. Its files are hard links to the run's installer where the
 * file system allows. The installer's own tests (provision-installer.test.ts) start
 * from empty caches.
 */
export async function cacheWithInstaller(cacheDir: string, python: string): Promise<string> {
  const { inject } = await import('vitest')
  const shared = join(inject('installerRunDir'), 'cache')
  const layout = describePython(python) as PythonLayout
  mkdirSync(shared, { recursive: true, mode: 0o755 })
  // The same options a build gives its installer step (provision-env.ts).
  await pipInstaller(
    layout,
    shared,
    { timeout: BUILD_TIMEOUT_MS, env: { LANG: 'C.UTF-8' } },
    undefined,
  )
  mkdirSync(cacheDir, { recursive: true, mode: 0o755 })
  // Hard links (a copy of 20 MB costs more than half a second on a loaded machine): nothing
  // writes into a finished installer. A copy where the two folders are on different file systems.
  const from = join(shared, 'installer')
  const to = join(cacheDir, 'installer')
  try {
    execFileSync('cp', ['-al', from, to], { stdio: 'ignore' })
  } catch {
    rmSync(to, { recursive: true, force: true })
    execFileSync('cp', ['-a', from, to])
  }
  return cacheDir
}
