import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Served } from './serve-clients.js'
import { listeningUrl, type ServeProcess, spawnServe } from './spawn-serve.js'

/** How `startReplicas` starts its replicas. */
export interface ReplicaOptions {
  /** How many `skillhost serve` processes. */
  readonly count: number
  /** The database they share (`--postgres`). */
  readonly db: string
  /** The skills folder they all serve. */
  readonly root: string
  /** The bearer token each requires (`--token`). */
  readonly token: string
  /** Replica `i`'s own state folder (`--state-dir`). */
  readonly stateDir: (i: number) => string
  /** Replica `i`'s further flags. */
  readonly extra?: (i: number) => readonly string[]
}

/**
 * `count` real `skillhost serve --http --postgres` replicas on one database,
 * started one after the other, each listening before the next starts; each is
 * added to `served.spawned` (stopped by `stopServed`).
 */
export async function startReplicas(
  served: Served,
  o: ReplicaOptions,
): Promise<{ urls: URL[]; procs: ServeProcess[] }> {
  const urls: URL[] = []
  const procs: ServeProcess[] = []
  for (let i = 0; i < o.count; i++) {
    const serve = spawnServe([
      ...['--http', '0', '--token', o.token, '--postgres', o.db, '--state-dir', o.stateDir(i)],
      ...(o.extra?.(i) ?? []),
      o.root,
    ])
    served.spawned.push(serve)
    procs.push(serve)
    urls.push(await listeningUrl(serve))
  }
  return { urls, procs }
}

/**
 * The SDK's real client continuing session `sessionId` on the replica at
 * `url` (another replica's session, or the same after a restart); added to
 * `served.clients` (closed by `stopServed`).
 */
export async function continueSession(
  served: Served,
  url: URL,
  sessionId: string,
  token: string,
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, {
    sessionId,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  const client = new Client({ name: 'replica-test', version: '1.0.0' })
  await client.connect(transport)
  served.clients.push(client)
  return client
}
