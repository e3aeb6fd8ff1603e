// One home for starting a throwaway PostgreSQL server from Debian's binaries:
// the tests (through test/helpers/postgres.ts) and bench/spool.mjs both use it.
// Plain JavaScript so the benchmarks run it without a build; types beside it
// in postgres-server.d.mts.
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Debian's server binaries (`/usr/lib/postgresql/<major>/bin`), newest major
 * first. `scripts/test.sh` installs the `postgresql` package when they are
 * missing; without them the suite fails loudly rather than skipping.
 */
export function postgresBinDir() {
  const base = '/usr/lib/postgresql'
  const majors = existsSync(base)
    ? readdirSync(base)
        .filter((d) => /^\d+$/.test(d) && existsSync(join(base, d, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  const major = majors[0]
  if (major === undefined)
    throw new Error(
      "PostgreSQL server binaries not found under /usr/lib/postgresql; run `npm test` (it installs Debian's postgresql) or `apt-get install postgresql`.",
    )
  return join(base, major, 'bin')
}

/** @returns {Promise<number>} */
async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

/**
 * Starts a private PostgreSQL server (for one test file, or a benchmark run): `initdb` into a fresh
 * temporary folder, then `pg_ctl start` on a free loopback port (no unix
 * socket in a shared place). PostgreSQL refuses to run as root, so as root the
 * server runs as the `postgres` user Debian's package creates.
 * @returns {Promise<import('./postgres-server.d.mts').TestPostgres>}
 */
export async function startPostgres() {
  const bin = postgresBinDir()
  const root = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'skillhost-pg-'))
  const data = join(dir, 'data')
  const owner = root
    ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    : -1
  if (root) {
    chmodSync(dir, 0o755)
    chownSync(dir, owner, -1)
  }
  const as = (cmd, args) =>
    root
      ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' })
      : spawnSync(cmd, args, { encoding: 'utf8' })
  const init = as(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
    '-N',
  ])
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`)
  const port = await freePort()
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${dir}' -c fsync=off -c max_connections=200`
  const up = () => {
    const start = as(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-o',
      opts,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '60',
      'start',
    ])
    if (start.status !== 0) throw new Error(`pg_ctl start failed: ${start.stderr}${start.stdout}`)
  }
  up()
  // The postmaster and every backend it forked: what a hung database is.
  const processes = () => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    const children = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster
        } catch {
          return false
        }
      })
      .map(Number)
    return [postmaster, ...children]
  }
  const signal = (name) => {
    const pids = processes()
    for (const pid of pids) process.kill(pid, name)
    return pids.length
  }
  let stopped
  const stop = () => {
    stopped ??= (async () => {
      // A paused server would never see the stop.
      try {
        signal('SIGCONT')
      } catch {
        // Already down.
      }
      stopPostgresIn(dir)
    })()
    return stopped
  }
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`
  return {
    url,
    port,
    dir,
    createDatabase: (name) => createDatabaseOn(port, name),
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    down() {
      const made = as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
      if (made.status !== 0) throw new Error(`pg_ctl stop failed: ${made.stderr}`)
    },
    up,
    stop,
    [Symbol.asyncDispose]: stop,
  }
}

/**
 * `CREATE DATABASE name` on the server at `port` (trust auth, loopback): a
 * fresh, empty database; its URL. `name` is a plain lowercase identifier.
 * @param {number} port
 * @param {string} name
 */
export function createDatabaseOn(port, name) {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`bad database name ${name}`)
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`
  const made = spawnSync(
    join(postgresBinDir(), 'psql'),
    ['-X', '-q', '-d', url, '-c', `CREATE DATABASE ${name}`],
    { encoding: 'utf8' },
  )
  if (made.status !== 0) throw new Error(`CREATE DATABASE failed: ${made.stderr}`)
  return `postgresql://postgres@127.0.0.1:${port}/${name}`
}

/**
 * Stops the server `startPostgres` made in `dir` (immediate mode; nothing if
 * it is down already) and removes `dir`: from any process, so the run that
 * shares one server (test/helpers/shared-postgres.ts) stops it at its end.
 * @param {string} dir
 */
export function stopPostgresIn(dir) {
  const cmd = join(postgresBinDir(), 'pg_ctl')
  const args = ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']
  if (process.getuid?.() === 0) spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args])
  else spawnSync(cmd, args)
  rmSync(dir, { recursive: true, force: true })
}
