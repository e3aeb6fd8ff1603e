import { createHash } from 'node:crypto'
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'

/** The folder probes are remembered in across processes; undefined: this process only. */
let probeDir: string | undefined

/** The largest remembered probe read back; a probe prints one short JSON line. */
const MAX_ENTRY_BYTES = 64 * 1024

/**
 * Remembers what `describePython` learns in `dir` (one file per interpreter,
 * owner-only), so the next process that asks about an unchanged interpreter
 * starts no python (issue 40.12: a pyenv shim chain is 247 `execve` per
 * `skillhost list`). Off unless called: the CLI turns it on with its cache
 * folder; a library user's process probes as before. `undefined` turns it off.
 */
export function rememberPythonProbes(dir: string | undefined): void {
  probeDir = dir
}

/** Who a file is, to the key: a changed, replaced or reinstalled file keys differently. */
function identity(path: string): string {
  try {
    const st = statSync(path, { bigint: true })
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
  } catch {
    return '-'
  }
}

/** The first line of `path` starts with `#!`: a wrapper (a pyenv shim) whose answer depends on more. */
function isScript(path: string): boolean {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const head = Buffer.alloc(2)
    return readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!'
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Each `.python-version` from `dir` up to the root, as pyenv looks for one. */
function localVersionFiles(dir: string): string[] {
  const files: string[] = []
  for (let at = dir; ; at = dirname(at)) {
    files.push(identity(join(at, '.python-version')))
    if (dirname(at) === at) return files
  }
}

/**
 * The key of `program`'s answer: its path and the identity (device, inode,
 * size, mtime, ctime) of the program, its real file and the venv's
 * `pyvenv.cfg` beside it. A wrapper script (a pyenv shim) answers for the
 * version its environment selects, so its key also holds the working folder,
 * `PYENV_VERSION` and the identity of every version file pyenv would read.
 */
function probeKey(program: string): string {
  let real = program
  try {
    real = realpathSync(program)
  } catch {
    // Gone: the probe will say so.
  }
  const parts = [
    program,
    identity(program),
    real,
    identity(real),
    identity(join(dirname(dirname(program)), 'pyvenv.cfg')),
  ]
  if (isScript(real)) {
    const root = process.env.PYENV_ROOT ?? join(process.env.HOME ?? '/', '.pyenv')
    const cwd = process.cwd()
    parts.push(cwd, process.env.PYENV_VERSION ?? '', identity(join(root, 'version')))
    parts.push(...localVersionFiles(cwd))
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 40)
}

/** What a probe of `program` printed in an earlier process, if it is still keyed the same. */
export function rememberedProbe(program: string): string | undefined {
  if (probeDir === undefined) return undefined
  try {
    const path = join(probeDir, `${probeKey(program)}.json`)
    if (statSync(path).size > MAX_ENTRY_BYTES) return undefined
    const entry = JSON.parse(readFileSync(path, 'utf8')) as { out?: unknown; exe?: unknown }
    if (typeof entry.out !== 'string' || typeof entry.exe !== 'object' || entry.exe === null)
      return undefined
    // The interpreter the answer names must be the one it was: else ask again.
    const exe = entry.exe as { path?: unknown; id?: unknown }
    if (typeof exe.path !== 'string' || identity(exe.path) !== exe.id) return undefined
    return entry.out
  } catch {
    return undefined
  }
}

/**
 * Keeps what the probe of `program` printed, with the identity of the
 * interpreter it names (`executable`), written whole and renamed into place.
 * A failure to write only means the next process asks again.
 */
export function rememberProbe(program: string, out: string, executable: string): void {
  if (probeDir === undefined) return
  try {
    mkdirSync(probeDir, { recursive: true, mode: 0o700 })
    const path = join(probeDir, `${probeKey(program)}.json`)
    const tmp = `${path}.${process.pid}.tmp`
    const exe = { path: executable, id: identity(executable) }
    writeFileSync(tmp, JSON.stringify({ out, exe }), { mode: 0o600 })
    renameSync(tmp, path)
  } catch {
    // Not remembered: the next process probes.
  }
}
