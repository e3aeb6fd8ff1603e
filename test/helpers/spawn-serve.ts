import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

// No MCP SDK here: a file that only spawns `serve` (or needs ROOT) does not load the
// SDK's client; the clients that talk to a spawned serve are in serve-clients.ts.

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
