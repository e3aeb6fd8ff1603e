import { execFileSync } from 'node:child_process'
import { realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import {
  INTERPRETER_MOUNT_ROOT,
  type InterpreterView,
  type MountPlan,
} from '../deps/python-view.js'
import { isPathInside } from '../policy/policy.js'
import { assertReadPath } from '../policy/script-interpreters.js'

const NODE = /^node[0-9.]*$/
const VERSION = /^v?([0-9]+\.[0-9]+\.[0-9]+)\s*$/

// By real path, size and mtime: a node replaced in place is asked again.
const nodeVersions = new Map<string, string | undefined>()

/**
 * The version a node binary reports (`node --version`, without its `v`),
 * asked once per process per binary, with no environment and a bound on
 * time; undefined when it does not answer as a node would.
 */
function nodeVersion(real: string): string | undefined {
  const st = statSync(real)
  const key = `${real}\0${st.size}\0${st.mtimeMs}`
  if (nodeVersions.has(key)) return nodeVersions.get(key)
  if (isRunningBinary(st)) return process.versions.node
  let version: string | undefined
  try {
    const out = execFileSync(real, ['--version'], {
      encoding: 'utf8',
      env: {},
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    version = VERSION.exec(out)?.[1]
  } catch {
    version = undefined
  }
  nodeVersions.set(key, version)
  return version
}

/**
 * Whether the file `st` describes is the binary this process runs (Linux:
 * the same device and inode as `/proc/self/exe`), so its `--version` is this
 * process's own: no process started to ask. A running binary cannot be
 * rewritten in place (ETXTBSY), and a replaced one has another inode.
 */
function isRunningBinary(st: { dev: number; ino: number }): boolean {
  try {
    const self = statSync('/proc/self/exe')
    return self.dev === st.dev && self.ino === st.ino
  } catch {
    return false
  }
}

/**
 * The installation folder a program belongs to: the parent of its `bin/`
 * (an nvm version, the `node` package), else its own folder.
 */
export function installationOf(real: string): string {
  const dir = dirname(real)
  return basename(dir) === 'bin' ? dirname(dir) : dir
}

/**
 * The sandbox view of an interpreter that is not a python with a layout
 * (`pythonView`) and lives outside the system folders: the installation
 * holding its real binary (`installationOf`, checked by `assertReadPath`)
 * bound read-only at a neutral path — a node at
 * `/opt/skillhost/node/<version>` (`node --version`, asked at setup), any
 * other name at `/opt/skillhost/programs/<name>` — and run from there, so
 * the program is never seen at its host path (`process.execPath`) and never
 * mounted inside the skill, scratch or workspace mount (an interpreter under
 * a host `/work` made mount points in the user's workspace). A program
 * whose real binary is in the system folders runs from there, unmounted.
 */
export function programView(
  name: string,
  argv: readonly string[],
  systemDirs: readonly string[],
  plan: MountPlan,
): InterpreterView {
  const program = argv[0] ?? ''
  const real = realpathSync(program)
  const rest = argv.slice(1)
  if (systemDirs.some((d) => isPathInside(real, d))) {
    return { argv: [real, ...rest], env: {}, mounts: [] }
  }
  const host = assertReadPath(installationOf(real), `the installation of interpreter ${program}`)
  const node = NODE.test(name) || NODE.test(basename(real))
  const version = node ? nodeVersion(real) : undefined
  const preferred = node
    ? `${INTERPRETER_MOUNT_ROOT}/node/${version ?? 'unknown'}`
    : `${INTERPRETER_MOUNT_ROOT}/programs/${name}`
  const sandbox = plan.place(host, preferred)
  return {
    argv: [join(sandbox, relative(host, real)), ...rest],
    env: {},
    mounts: [{ host, sandbox }],
    ...(version === undefined ? {} : { version }),
  }
}
