import { createHash } from 'node:crypto'
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { traced } from '../../../common/tracing.js'
import type { PythonLayout } from '../policy/user-python.js'
import { readyOrLocked, releaseBuildLock } from './build-lock.js'
import { runFile } from './run-file.js'
import { buildSeedTemplate, SEEDED } from './seed-template.js'

/**
 * pip made runnable once per env cache and interpreter: the interpreter's
 * bundled pip wheel (what `ensurepip` would install) unpacked and
 * byte-compiled, the seed wheels `ensurepip` installs into a new venv, and
 * those seeds as installed once (`buildSeedTemplate`).
 */
export interface PipInstaller {
  /** The unpacked `pip` package folder: `<venv python> -I <pip> install ...` runs it. */
  readonly pip: string
  /** A folder holding exactly the seed wheels (`--no-index --find-links`). */
  readonly wheels: string
  /** The seeds as `name==version`, what `ensurepip` installs (pip, and setuptools where bundled). */
  readonly seeds: readonly string[]
  /** The seed template: the files installing the seeds added to a venv, by path from its root. */
  readonly seeded: string
}

/** What an installer folder's `installer.json` says: the seeds, or why this interpreter builds as before. */
type InstallerRecord = { seeds: string[] } | { fallback: string }

/** Marks the unpack step's command, so a failure of it is named as such (`buildFailureCause`). */
export const INSTALLER_STEP = '# skillhost: unpack the bundled pip'

/** The oldest bundled pip used from outside a venv; an older one builds as before (ensurepip). */
const MIN_PIP = '22.3'

/**
 * Run by the interpreter itself (`-I -c`, argv: the temp folder, MIN_PIP):
 * finds the wheels `ensurepip` would install (3.7 to 3.13, and a
 * distribution's WHEEL_PKG_DIR), copies them to `wheels/`, unpacks only the
 * `pip` package (no dist-info: pip must not see itself installed in the
 * venv it seeds) to `lib/` and byte-compiles it; prints the record.
 */
const UNPACK = `${INSTALLER_STEP}
import compileall, ensurepip, json, os, re, shutil, sys, zipfile
out, least = sys.argv[1], tuple(int(x) for x in sys.argv[2].split("."))
bundled = os.path.join(os.path.dirname(ensurepip.__file__), "_bundled")
os.mkdir(os.path.join(out, "wheels"))
def keep(path):
    shutil.copy(str(path), os.path.join(out, "wheels", os.path.basename(str(path))))
if hasattr(ensurepip, "_get_packages"):
    for p in ensurepip._get_packages().values():
        keep(p.wheel_path or os.path.join(bundled, p.wheel_name))
elif hasattr(ensurepip, "_PROJECTS"):
    for p in ensurepip._PROJECTS:
        keep(os.path.join(bundled, "%s-%s-%s-none-any.whl" % p))
else:
    with ensurepip._get_pip_whl_path_ctx() as p:
        keep(p)
seeds, pip = [], None
for name in sorted(os.listdir(os.path.join(out, "wheels"))):
    m = re.match(r"([A-Za-z0-9_]+)-([0-9][^-]*)-", name)
    seeds.append("%s==%s" % (m.group(1), m.group(2)))
    if m.group(1) == "pip":
        pip = name
version = () if pip is None else tuple(int(x) for x in re.findall(r"[0-9]+", pip.split("-")[1])[:2])
if version < least:
    print(json.dumps({"fallback": "no bundled pip" if pip is None else "bundled %s is older than %s" % (pip, sys.argv[2])}))
    sys.exit(0)
with zipfile.ZipFile(os.path.join(out, "wheels", pip)) as z:
    z.extractall(os.path.join(out, "lib"), [n for n in z.namelist() if n.startswith("pip/")])
if not compileall.compile_dir(os.path.join(out, "lib", "pip"), quiet=2):
    sys.exit("could not byte-compile the bundled pip")
print(json.dumps({"seeds": seeds}))
`

/** The installer folder's key: the interpreter (version and binary), as `envKey` names it. */
function installerKey(python: PythonLayout): string {
  return (
    createHash('sha256')
      // `2`: installers hold a seed template (older ones are left, unused, for a new build).
      .update(JSON.stringify(['pip-installer', 2, python.version, python.realExecutable]))
      .digest('hex')
      .slice(0, 32)
  )
}

async function readInstaller(dir: string): Promise<InstallerRecord | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'installer.json'), 'utf8')) as InstallerRecord
  } catch {
    return undefined
  }
}

function usable(dir: string, record: InstallerRecord): PipInstaller | undefined {
  if (!('seeds' in record)) return undefined
  return {
    pip: join(dir, 'lib', 'pip'),
    wheels: join(dir, 'wheels'),
    seeds: record.seeds,
    seeded: join(dir, SEEDED),
  }
}

/**
 * The installer of `python` in `cacheDir` (`installer/<key>/`), built once:
 * unpacked by the interpreter in a temp folder of the cache, its seed
 * template made there (`buildSeedTemplate`), renamed into
 * place whole, under a lock folder a second builder waits on, the
 * discipline of environments (`provisionEnv`); only a finished installer is
 * ever in `installer/`. Undefined when the interpreter bundles no pip, or
 * one older than 22.3: its environments build as before (`python -m venv`
 * with ensurepip); that verdict is kept too. A failed unpack rejects with
 * the step's failure (the caller's `buildRefusal` names it); `signal` kills
 * it, and its temp folder and lock go.
 */
export async function pipInstaller(
  python: PythonLayout,
  cacheDir: string,
  opts: { readonly timeout: number; readonly env: Readonly<Record<string, string>> },
  signal: AbortSignal | undefined,
): Promise<PipInstaller | undefined> {
  const key = installerKey(python)
  const dir = join(cacheDir, 'installer', key)
  // Lock and temp folder beside the environments', so an abandoned build leaves no `installer/`.
  const lock = join(cacheDir, `.installer-${key}.lock`)
  const ready = await readyOrLocked(() => readInstaller(dir), lock, signal)
  if (ready !== undefined) return usable(dir, ready)
  try {
    const built = await traced('skillhost.provision_installer', {}, () =>
      buildInstaller(python, cacheDir, dir, opts, signal),
    )
    return usable(dir, built)
  } finally {
    await releaseBuildLock(lock)
  }
}

async function buildInstaller(
  python: PythonLayout,
  cacheDir: string,
  dir: string,
  opts: { readonly timeout: number; readonly env: Readonly<Record<string, string>> },
  signal: AbortSignal | undefined,
): Promise<InstallerRecord> {
  const tmp = await mkdtemp(join(cacheDir, '.build-installer-'))
  try {
    const { stdout } = await runFile(python.executable, ['-I', '-c', UNPACK, tmp, MIN_PIP], {
      ...opts,
      maxBuffer: 1 << 20,
      ...(signal && { signal }),
    })
    const record = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as InstallerRecord
    signal?.throwIfAborted()
    if ('seeds' in record)
      await buildSeedTemplate(python, tmp, record.seeds, {
        ...opts,
        maxBuffer: 16 << 20,
        ...(signal && { signal }),
      })
    await writeFile(join(tmp, 'installer.json'), `${JSON.stringify(record)}\n`)
    await chmod(tmp, 0o755)
    await mkdir(join(cacheDir, 'installer'), { recursive: true, mode: 0o755 })
    try {
      await rename(tmp, dir)
    } catch (err) {
      // Another builder finished first (a lock judged stale by two): its installer stands.
      const theirs = await readInstaller(dir)
      if (theirs === undefined) throw err
      await rm(tmp, { recursive: true, force: true })
      return theirs
    }
    return record
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined)
    throw err
  }
}
