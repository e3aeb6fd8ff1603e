import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type {} from 'vitest'
import { createDatabaseOn, startPostgres, stopPostgresIn } from '../../scripts/postgres-server.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** This vitest run's folder for its one shared PostgreSQL server (test/global-setup.ts). */
    postgresRunDir: string
  }
}

/** The run's shared server, as one test file sees it: only databases of its own. */
export interface SharedPostgres {
  /**
   * A fresh, empty database on the shared server that no other file uses: `name`
   * with a suffix unique to this file (files run at once and share the server).
   * Its URL.
   */
  createDatabase(name: string): string
}

// Unique per test file: each file is its own module instance (vitest isolates files).
const fileTag = randomBytes(4).toString('hex')
let port: Promise<number> | undefined

/**
 * The one PostgreSQL server of this vitest run, started by the first file that
 * asks (others wait for it) and stopped by the run's global teardown
 * (`stopSharedPostgres`): a server start per run, not per file. Files stay
 * isolated by database (`createDatabase`). A file that stops, pauses or
 * restarts its server (an outage test) starts its own with `startPostgres`.
 */
export async function sharedPostgres(): Promise<SharedPostgres> {
  // Loaded here, not at the top: the run's global setup (outside any test file) imports this module.
  const { inject } = await import('vitest')
  port ??= serverPort(inject('postgresRunDir'))
  const at = await port
  return { createDatabase: (name) => createDatabaseOn(at, `${name}_${fileTag}`) }
}

/** The started server's port: this process starts it when it is first to take `run/starting`. */
async function serverPort(run: string): Promise<number> {
  const state = join(run, 'server.json')
  try {
    mkdirSync(join(run, 'starting'))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    return startedBySomeone(run, state)
  }
  try {
    const server = await startPostgres()
    writeFileSync(`${state}.tmp`, JSON.stringify({ port: server.port, dir: server.dir }))
    renameSync(`${state}.tmp`, state)
    return server.port
  } catch (err) {
    writeFileSync(join(run, 'failed'), String(err))
    throw err
  }
}

/** Waits for another file's start (it writes `server.json` whole, or `failed`); counted, not timed. */
async function startedBySomeone(run: string, state: string): Promise<number> {
  for (let attempt = 0; attempt < 6000; attempt++) {
    if (existsSync(state)) return (JSON.parse(readFileSync(state, 'utf8')) as { port: number }).port
    if (existsSync(join(run, 'failed')))
      throw new Error(
        `the shared PostgreSQL server did not start: ${readFileSync(join(run, 'failed'), 'utf8')}`,
      )
    await sleep(20)
  }
  throw new Error('the shared PostgreSQL server was still starting after 6000 looks')
}

/** The run's global teardown: stops the shared server if a file started it. */
export function stopSharedPostgres(run: string): void {
  const state = join(run, 'server.json')
  if (existsSync(state))
    stopPostgresIn((JSON.parse(readFileSync(state, 'utf8')) as { dir: string }).dir)
}
