import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/** The package root: the built binary is `dist/cli/main.js` under it. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A spawned `skillhost serve` process. */
export interface ServeProcess {
  readonly child: ChildProcess
  /** Everything it wrote to stderr so far. */
  stderr(): string
  /** Resolves to the exit code once the process ends. */
  readonly exited: Promise<number | null>
}

/** Polls `check` between turns of the event loop until it holds; the test timeout bounds it. */
export async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5))
}

/** Spawns the built `skillhost serve` with `args` and an environment of `PATH`/`HOME` plus `env`. */
export function spawnServe(args: readonly string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  return { child, stderr: () => err, exited }
}

/** Waits for `listening on URL` (or the process ending) and returns the endpoint on 127.0.0.1. */
export async function listeningUrl(served: ServeProcess): Promise<URL> {
  let ended = false
  void served.exited.then(() => {
    ended = true
  })
  const pattern = /listening on (\S+)/
  await waitFor(() => ended || pattern.test(served.stderr()))
  const match = pattern.exec(served.stderr())
  if (!match?.[1]) throw new Error(`serve did not start:\n${served.stderr()}`)
  const url = new URL(match[1])
  url.hostname = '127.0.0.1'
  return url
}

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
