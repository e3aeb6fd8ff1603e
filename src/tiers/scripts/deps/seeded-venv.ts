import { join } from 'node:path'
import type { PythonLayout } from '../policy/user-python.js'
import { pipInstaller } from './pip-installer.js'
import { type RunOptions, runFile } from './run-file.js'
import { COPY_TEMPLATE } from './seed-template.js'

/**
 * A venv at `tmp/venv` holding what `python -m venv` gives (pip, and
 * setuptools where the interpreter bundles it): made `--without-pip` and
 * seeded from the cache's installer (`pipInstaller`) by copying its seed
 * template, the files pip's install of the bundled wheels added to a venv
 * once, byte-compiled as ensurepip leaves them (`buildSeedTemplate`); or,
 * for an interpreter without a usable bundled pip, by `python -m venv`
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
  await runFile(python.executable, ['-I', '-c', COPY_TEMPLATE, installer.seeded, venv], opts)
  return { venvPython, pip: ['-I', installer.pip] }
}
