// How corpus-check runs a command, in both its modes: no shell, a small fixed
// environment, a hard kill past the limit, output counted and capped; and why
// a run failed, read from what it printed.
import { spawn } from 'node:child_process'

const MAX_OUTPUT = 1 << 20

/**
 * Runs argv in cwd and resolves { status, stdout, stderr }: status is the exit
 * code, 128 + signal when killed, 127 when it could not start. The
 * environment is PATH (the given one, else the caller's), HOME = cwd and
 * LANG = C.UTF-8 only, so what the user's shell holds cannot differ between
 * two runs.
 */
export function exec(argv, cwd, { timeoutSeconds = 30, path } = {}) {
  return new Promise((done) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: path ?? process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, LANG: 'C.UTF-8' },
      timeout: timeoutSeconds * 1000,
      killSignal: 'SIGKILL',
    })
    const chunks = { stdout: [], stderr: [] }
    let size = 0
    for (const name of ['stdout', 'stderr']) {
      child[name].on('data', (b) => {
        size += b.length
        if (size <= MAX_OUTPUT) chunks[name].push(b)
      })
    }
    child.once('error', (err) => done({ status: 127, stdout: '', stderr: String(err) }))
    child.once('close', (code, signal) =>
      done({
        status: code ?? 128 + (signal === 'SIGKILL' ? 9 : 15),
        stdout: Buffer.concat(chunks.stdout).toString('utf8'),
        stderr: Buffer.concat(chunks.stderr).toString('utf8'),
      }),
    )
  })
}

/** Why a run failed, read from what it printed: a short fixed label, never the text itself. */
export function reason({ status, stderr }) {
  if (status === 124) return 'timed out (no network in the sandbox?)'
  if (/ModuleNotFoundError|No module named|ImportError|pip install|is not installed/.test(stderr))
    return 'python package missing'
  if (/Cannot find (module|package)|ERR_MODULE_NOT_FOUND/.test(stderr))
    return 'node package missing'
  if (/Read-only file system|EROFS/.test(stderr)) return 'read-only file system'
  if (/Permission denied|EACCES|EPERM/.test(stderr)) return 'permission denied'
  if (/command not found|not found$/m.test(stderr)) return 'command not found'
  if (/Network is unreachable|Temporary failure in name resolution|ENOTFOUND/.test(stderr))
    return 'no network'
  if (/No such file or directory|ENOENT|FileNotFoundError/.test(stderr)) return 'missing file'
  const code = stderr.match(/\bE_[A-Z_]+/)
  if (code) return `skillhost ${code[0]}`
  return 'other'
}
