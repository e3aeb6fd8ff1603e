import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import { devNull } from 'node:os'
import { dirname, join, relative } from 'node:path'
import type { PythonLayout } from '../policy/user-python.js'
import { type RunOptions, runFile } from './run-file.js'

/** The installer's template folder: what seeding adds to a venv, by path from the venv's root. */
export const SEEDED = 'seeded'

/** Every file and link under `dir` (folders are not listed; links are not followed), by path from `dir`. */
async function filesUnder(dir: string): Promise<Set<string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return new Set(
    entries.filter((e) => !e.isDirectory()).map((e) => relative(dir, join(e.parentPath, e.name))),
  )
}

/**
 * Builds the installer's seed template in `out/seeded/` (`out` is the
 * installer's temp folder, holding `lib/pip` and `wheels/`): a venv made
 * `--without-pip` in `out`, seeded by pip once (`seedStep`), and every file
 * the seeding added moved into the template at the same path from the
 * venv's root (site-packages with its `.pyc` files, the `bin/pip*` scripts),
 * their times kept so the `.pyc` files stay valid. A new venv is then seeded
 * by copying it (`seededVenv`): the same files, without running pip's
 * install and byte-compile for every set. Fails as the step that failed.
 */
export async function buildSeedTemplate(
  python: PythonLayout,
  out: string,
  seeds: readonly string[],
  opts: RunOptions,
): Promise<void> {
  const venv = join(out, 'seed-venv')
  await runFile(python.executable, ['-I', '-m', 'venv', '--without-pip', venv], opts)
  const before = await filesUnder(venv)
  // The installer's pip installs the seeds from its wheels and nothing else, byte-compiled, as
  // ensurepip runs it: no index, no dependencies, no pip configuration file, no report.
  await runFile(
    join(venv, 'bin', 'python'),
    [
      ...['-I', join(out, 'lib', 'pip'), 'install', '--no-input', '--disable-pip-version-check'],
      ...[
        '--no-cache-dir',
        '--no-index',
        '--find-links',
        join(out, 'wheels'),
        '--no-deps',
        ...seeds,
      ],
    ],
    { ...opts, env: { ...opts.env, PIP_CONFIG_FILE: devNull } },
  )
  for (const rel of await filesUnder(venv)) {
    if (before.has(rel)) continue
    const to = join(out, SEEDED, rel)
    await mkdir(dirname(to), { recursive: true, mode: 0o755 })
    await rename(join(venv, rel), to)
  }
  await rm(venv, { recursive: true, force: true })
}

/**
 * Run by the interpreter (`-I -c`, argv: the template, the new venv): copies
 * the template over the venv's root, files with their times (`copy2`), into
 * the folders the venv already has.
 */
export const COPY_TEMPLATE =
  'import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2], symlinks=True, dirs_exist_ok=True)'
