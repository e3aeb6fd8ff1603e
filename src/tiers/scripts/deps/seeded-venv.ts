import { devNull } from 'node:os'
import { join } from 'node:path'
import type { PythonLayout } from '../policy/user-python.js'
import { pipInstaller } from './pip-installer.js'
import { runFile } from './run-file.js'

/**
 * A venv at `tmp/venv` holding what `python -m venv` gives (pip, and
 * setuptools where the interpreter bundles it): made `--without-pip` and
 * seeded by the cache's installer (`pipInstaller`) from the bundled wheels,
 * in a run of its own without `--report`, byte-compiled as ensurepip does;
 * or, for an interpreter without a usable bundled pip, by `python -m venv`
 * itself. Returns the seeded venv's python and the pip to run with it.
 */
export async function seededVenv(
  python: PythonLayout,
  tmp: string,
  cacheDir: string,
  opts: RunOptions,
): Promise<{ venvPython: string; pip: readonly string[] }> {
  const venv = join(tmp, 'venv')
  const venvPython = join(venv, 'bin', 'python')
  const installer = await pipInstaller(python, cacheDir, opts, opts.signal)
  if (installer === undefined) {
    await runFile(python.executable, ['-I', '-m', 'venv', venv], opts)
    return { venvPython, pip: ['-I', '-m', 'pip'] }
  }
  await runFile(python.executable, ['-I', '-m', 'venv', '--without-pip', venv], opts)
  const pip = ['-I', installer.pip]
  await runFile(
    venvPython,
    [
      ...[...pip, 'install', '--no-input', '--disable-pip-version-check', '--no-cache-dir'],
      ...['--no-index', '--find-links', installer.wheels, '--no-deps', ...installer.seeds],
    ],
    // As ensurepip runs it: no pip configuration file (no deployer index to look at).
    { ...opts, env: { ...opts.env, PIP_CONFIG_FILE: devNull } },
  )
  return { venvPython, pip }
}

/** The options every build step runs with. */
export interface RunOptions {
  readonly timeout: number
  readonly env: Readonly<Record<string, string>>
  readonly maxBuffer: number
  readonly signal?: AbortSignal
}
