import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { listeningUrl, ROOT, type ServeProcess, spawnServe } from '../helpers/spawn-serve.js'

const work = mkdtempSync(join(tmpdir(), 'skillhost-readyz-'))
let server: TestPostgres
let served: ServeProcess | undefined
beforeAll(async () => {
  server = await startPostgres()
})
afterAll(async () => {
  if (served && served.child.exitCode === null) served.child.kill('SIGTERM')
  await served?.exited
  await server?.stop()
  rmSync(work, { recursive: true, force: true })
})

/** `/readyz`'s status and body. */
async function readyz(url: URL): Promise<{ status: number; body: unknown }> {
  const res = await fetch(new URL('/readyz', url))
  return { status: res.status, body: await res.json() }
}

/**
 * Asks `/readyz` every 100 ms until it answers `status`; returns how many
 * asks it took. Bounded by a generous count (60 s), never by a clock assert.
 */
async function pollUntil(url: URL, status: number): Promise<number> {
  for (let attempt = 1; attempt <= 600; attempt++) {
    if ((await readyz(url)).status === status) return attempt
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`/readyz never answered ${status}`)
}

describe('serve --http --postgres /readyz follows the database (issue 41 item 1)', () => {
  it('turns unready when PostgreSQL stops (or hangs) and ready again when it restarts; /healthz stays 200', async () => {
    const root = join(work, 'skills')
    cpSync(join(ROOT, 'examples/skills'), root, { recursive: true })
    const db = server.createDatabase('readyz')
    served = spawnServe(
      ['--http', '0', '--no-scripts', '--postgres', db, '--state-dir', join(work, 'state'), root],
      { SKILLHOST_TOKEN: 'readyz-token' },
    )
    const url = await listeningUrl(served)
    expect(await readyz(url)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { catalog: 'ok', postgres: 'ok', sandbox: 'off' } },
    })

    server.down()
    const downAsks = await pollUntil(url, 503)
    expect(downAsks).toBeGreaterThanOrEqual(1)
    const down = await readyz(url)
    expect(down).toEqual({
      status: 503,
      body: { status: 'unready', checks: { catalog: 'ok', postgres: 'failing', sandbox: 'off' } },
    })
    // The process still serves: liveness is not readiness.
    expect((await fetch(new URL('/healthz', url))).status).toBe(200)
    // Neither the URL nor anything of the driver's error reaches the body.
    expect(JSON.stringify(down.body)).not.toContain('127.0.0.1')

    server.up()
    const upAsks = await pollUntil(url, 200)
    expect(upAsks).toBeGreaterThanOrEqual(1)
    expect((await readyz(url)).body).toMatchObject({ status: 'ready' })
    console.log(
      `readyz: unready after ${downAsks} asks, ready again after ${upAsks} (100 ms apart)`,
    )
  }, 120_000)
})
