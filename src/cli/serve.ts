import { readFileSync } from 'node:fs'
import { serveMcpHttp } from '../adapters/mcp/serve-http.js'
import { serveMcpStdio } from '../adapters/mcp/serve-stdio.js'
import type { CliCommand, CliIo } from './cli-command.js'
import { createPolicyGate, gatePolicyFor, readGatePolicy } from './serve-gate.js'
import { parseServeOptions } from './serve-options.js'
import { createServeRuntime } from './serve-runtime.js'

const HELP = `Usage: skillhost serve [options] [root...]

Serve skills over MCP: the five lifecycle tools (list_skills, load_skill, …)
plus the tools of every loaded skill, with tools/list_changed on each change.
Over stdio by default (stdout is the protocol channel; logs go to stderr), or
Streamable HTTP with --http. Each MCP session has its own skill manager.

Roots default to ./skills and ~/.agents/skills, those that exist.

Options:
  --state-dir DIR      where results are spooled (default $XDG_STATE_HOME/skillhost
                       or ~/.local/state/skillhost)
  --import-modules     import the module tools skills declare (runs their code
                       in this process; off by default)
  --no-scripts         never run skill scripts (default: on when bubblewrap works)
  --gate MODE          allow-all (default; every decision logged) or deny-scripts
  --gate-policy FILE   a JSON policy: {"default":"allow","rules":[{"tool":"run_*",
                       "skill":"*","tier":"script","effect":"deny","reason":"…"}]}
                       (first matching rule wins; tiers: lifecycle, module,
                       isolated, script)
  --channel MODE       how bodies reach the model: handle (default) or inline
  --http PORT          serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio
  --host HOST          interface for --http (default 127.0.0.1)
  -h, --help           show this help

SIGINT or SIGTERM shuts down cleanly: sessions closed, managers disposed,
guests and sandboxed processes killed, workspaces removed.`

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  } catch {
    return '0.0.0'
  }
}

/** Resolves on the first of SIGINT / SIGTERM; `off` removes the listeners. */
function onSignal(): { promise: Promise<string>; off: () => void } {
  let off = (): void => undefined
  const promise = new Promise<string>((resolve) => {
    const handler = (signal: string): void => resolve(signal)
    process.once('SIGINT', handler)
    process.once('SIGTERM', handler)
    off = () => {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    }
  })
  return { promise, off }
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const options = parseServeOptions(argv)
  if (options.help) {
    io.stderr(`${HELP}\n`)
    return 0
  }
  const log = (line: string): void => io.stderr(`skillhost serve: ${line}\n`)
  const policy = 'policyFile' in options.gate ? await readGatePolicy(options.gate.policyFile) : gatePolicyFor(options.gate.mode)
  log(`roots: ${options.roots.length > 0 ? options.roots.join(', ') : '(none found; pass a root)'}`)
  log(`gate: ${'policyFile' in options.gate ? options.gate.policyFile : options.gate.mode}; state: ${options.stateDir}`)
  log(`module imports ${options.importModules ? 'ON' : 'off'}; isolated tools on (QuickJS)`)
  const signal = onSignal()
  const runtime = await createServeRuntime({
    roots: options.roots,
    stateDir: options.stateDir,
    importModules: options.importModules,
    scripts: options.scripts,
    gate: createPolicyGate(policy, log),
    log,
    ...(options.channel ? { defaultChannel: options.channel } : {}),
  })
  const common = {
    createManager: runtime.createManager,
    serverInfo: { name: 'skillhost', version: version() },
    onToolCall: (e: { tool: string; ok: boolean; error?: string }) =>
      log(e.ok ? `call ${e.tool} ok` : `call ${e.tool} failed: ${e.error ?? ''}`),
  }
  try {
    if (options.http) {
      const server = await serveMcpHttp({
        ...common,
        port: options.http.port,
        host: options.http.host,
        onSession: (e) => log(`session ${e.sessionId} ${e.kind}`),
      })
      log(`listening on ${server.url.href}`)
      const why = await signal.promise
      log(`${why}: shutting down`)
      await server.close()
    } else {
      const server = await serveMcpStdio(common)
      log('serving MCP on stdio')
      const why = await Promise.race([signal.promise, server.closed.then(() => 'stdin closed')])
      log(`${why}: shutting down`)
      await server.close()
      process.stdin.destroy()
    }
  } finally {
    signal.off()
    await runtime.dispose()
  }
  log('shutdown complete')
  return 0
}

/** `skillhost serve`: the skill manager as an MCP server, over stdio or Streamable HTTP. */
export const serveCommand: CliCommand = { name: 'serve', summary: 'serve skills over MCP (stdio or --http)', help: HELP, run }
