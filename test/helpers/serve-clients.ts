import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ROOT, type ServeProcess } from './spawn-serve.js'

// The official SDK's clients on a `skillhost serve` that spawn-serve.ts starts (or
// that this file spawns over stdio): apart, so that only a file that talks MCP to
// a served process loads the SDK.

/** Connects the SDK's real Streamable HTTP client to `url`, with a bearer token when given. */
export async function connectHttp(
  url: URL,
  token?: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(url, {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  })
  const client = new Client({ name: 'serve-http-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, transport }
}

/** The official SDK client on a `skillhost serve` over stdio, and what the server wrote to stderr so far. */
export interface StdioServe {
  readonly client: Client
  stderr(): string
}

/**
 * Spawns the built `skillhost serve ...args` in `cwd` with only `PATH` and
 * `HOME` (= `home`) in its environment, and connects the official SDK client
 * (named `clientName`) to it over stdio, keeping its stderr. The caller closes
 * the client, which ends the server.
 */
export async function connectStdio(
  args: readonly string[],
  options: { readonly cwd: string; readonly home: string; readonly clientName: string },
): Promise<StdioServe> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'dist/cli/main.js'), 'serve', ...args],
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: options.home },
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const client = new Client({ name: options.clientName, version: '1.0.0' })
  await client.connect(transport)
  return { client, stderr: () => err }
}

/** What a test file started: its serve processes and its clients, ended after each test by `stopServed`. */
export interface Served {
  readonly spawned: ServeProcess[]
  readonly clients: Client[]
}

/** Closes every client, then SIGTERMs each serve still running and waits for its exit; empties both. */
export async function stopServed({ spawned, clients }: Served): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)))
  for (const p of spawned.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM')
    await p.exited
  }
}
