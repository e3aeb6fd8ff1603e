import { resolve } from 'node:path'
import { serveMcpHttp, serveMcpStdio } from '../../adapters/mcp/index.js'
import { personText, quoteName, SkillHostError, SkillHostMetrics } from '../../common/index.js'
import { prepareScriptInterpreters } from '../../tiers/scripts/internal.js'
import type { CliIo } from '../shared/cli-command.js'
import { lockedFlag } from '../shared/locked-flag.js'
import { packageVersion } from '../shared/package-version.js'
import { plural } from '../shared/plural.js'
import { cliErrorCode, FAILURE_STATUS, USAGE_STATUS } from '../shared/report-error.js'
import { sandboxOptionsFrom } from '../shared/sandbox-options.js'
import { UNUSABLE_ROOT_STATUS, usableRoots } from '../shared/usable-roots.js'
import { createPolicyGate, gatePolicyFor, readGatePolicy } from './serve-gate.js'
import { createServeLog, logIo, type ServeLog } from './serve-log.js'
import { noRootsMessage, parseServeOptions, type ServeOptions, TOKEN_ENV } from './serve-options.js'
import type { ServePostgres } from './serve-postgres.js'
import { serveReadiness } from './serve-readiness.js'
import { createServeRuntime, type ServeRuntime } from './serve-runtime.js'

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

const MIB = 1024 * 1024
const DAY = 24 * 60 * 60 * 1000

/** One line saying what happens to the session spools. */
function describeSpool(options: ServeOptions): string {
  const { maxAgeMs, maxTotalBytes } = options.spoolRetention
  const bounds = [
    maxAgeMs !== undefined ? `older than ${maxAgeMs / DAY} days` : undefined,
    maxTotalBytes !== undefined ? `beyond ${maxTotalBytes / MIB} MiB in all` : undefined,
  ].filter((b) => b !== undefined)
  return `spool: ${options.durableSpool ? 'durable (kept after a session closes)' : 'removed when its session closes'}; closed sessions' folders ${bounds.length > 0 ? `pruned when ${bounds.join(' or ')}` : 'never pruned'}`
}

/** Logs how HTTP requests are authenticated, with the warnings an operator must see. */
function describeAuth(http: NonNullable<ServeOptions['http']>, log: ServeLog): void {
  if (http.tokenFrom === 'flag')
    log(`warning: --token is visible to other local users (ps, /proc); prefer ${TOKEN_ENV}`, {
      level: 'warning',
    })
  if (http.token !== undefined)
    log(`auth: bearer token (from ${http.tokenFrom === 'flag' ? '--token' : TOKEN_ENV})`)
  else if (http.insecure)
    log(
      `WARNING: --insecure-no-auth: no authentication on ${http.host}; anyone who can reach this port can load skills and run their tools and scripts`,
      { level: 'warning' },
    )
  else log('auth: none (loopback only)')
}

/** The roots `serve` can search, or the exit status when there are none. */
function servedRoots(options: ServeOptions, io: CliIo): readonly string[] | number {
  if (options.roots.length === 0) {
    io.stderr(`skillhost serve: ${noRootsMessage()}\n`)
    return UNUSABLE_ROOT_STATUS
  }
  // Each root that cannot be searched is named; the others are served. None left: nothing to serve.
  const roots = usableRoots(options.roots, io, 'serve').usable
  if (roots.length === 0) {
    io.stderr('skillhost serve: no skill root can be searched; nothing to serve.\n')
    return UNUSABLE_ROOT_STATUS
  }
  return roots
}

/** Logs what is served and how: roots, lock, gate, overlays, tiers. */
function describeServe(
  options: ServeOptions,
  roots: readonly string[],
  lock: Awaited<ReturnType<typeof lockedFlag>>,
  log: (line: string) => void,
): void {
  log(`roots: ${roots.join(', ')}`)
  if (lock)
    log(
      `locked: ${options.locked} (${plural(lock.skills.size, 'skill')} pinned; others are not served)`,
    )
  log(
    `gate: ${'policyFile' in options.gate ? options.gate.policyFile : options.gate.mode}; state: ${options.stateDir}`,
  )
  if (options.overlays.length > 0) log(`overlays: ${options.overlays.join(', ')}`)
  log(`module imports ${options.importModules ? 'ON' : 'off'}; isolated tools on (QuickJS)`)
}

/**
 * With `--postgres`: connects (loading the optional `pg` only then), logs
 * what is shared, and prunes sessions not seen for the spool's max age.
 * Without it: logs the file spool's retention; undefined.
 */
async function openShared(
  options: ServeOptions,
  log: ServeLog,
): Promise<ServePostgres | undefined> {
  const url = options.http?.postgres
  if (url === undefined) {
    log(describeSpool(options))
    return undefined
  }
  const pgServe = await import('./serve-postgres.js')
  const shared = await pgServe.openServePostgres(url, log)
  log(
    `postgres: ${pgServe.redactPostgresUrl(url)}: sessions, spooled results, ${options.workspace === undefined ? 'session workspaces' : 'not the --workspace folder (the deployer’s own)'} and catalog refreshes shared with other replicas (replica ${shared.replica})`,
  )
  const pruned = await shared
    .prune(options.spoolRetention.maxAgeMs ?? Number.POSITIVE_INFINITY)
    .catch((err: Error) => {
      log(`postgres: session prune failed: ${err.message}`, { level: 'warning' })
      return 0
    })
  if (pruned > 0)
    log(`postgres: pruned ${plural(pruned, 'session')} not seen for the spool's max age`)
  return shared
}

/** Logs a shared-session failure: a skillhost error's code and person text (the driver's words), else the message. */
function logSharedError(log: ServeLog, e: { sessionId?: string; error: unknown }): void {
  const { error } = e
  const why =
    error instanceof Error
      ? SkillHostError.isInstance(error)
        ? `${error.code}: ${personText(error)}`
        : error.message
      : String(error)
  log(`session ${e.sessionId ?? '-'}: ${why}`, {
    level: 'error',
    ...(e.sessionId !== undefined && { session: e.sessionId }),
    ...(SkillHostError.isInstance(error) && { code: error.code }),
  })
}

/** Logs one finished tool call: `warning` with the failure's code when it failed. */
function logToolCall(
  log: ServeLog,
  e: { tool: string; ok: boolean; error?: string; cause?: unknown; sessionId?: string },
): void {
  const session = e.sessionId === undefined ? {} : { session: e.sessionId }
  const code = SkillHostError.isInstance(e.cause) ? { code: e.cause.code } : {}
  if (e.ok) log(`call ${e.tool} ok`, session)
  else log(`call ${e.tool} failed: ${e.error ?? ''}`, { level: 'warning', ...session, ...code })
}

/** What every session's MCP server is made with: identity and the call log. */
function sessionOptions(options: ServeOptions, log: ServeLog) {
  return {
    serverInfo: { name: 'skillhost', version: packageVersion() },
    ...(options.catalog && { catalog: options.catalog }),
    onToolCall: (e: Parameters<typeof logToolCall>[1]) => logToolCall(log, e),
    skillsExtension: {
      ...(options.lenientSkills && { lenient: true }),
      onLeftOut: (e: { id: string; reason: string }) =>
        log(`skills extension leaves out ${quoteName(e.id)}: ${e.reason}`, { level: 'warning' }),
    },
  }
}

/** Builds the runtime (discovery, spools, scripts) from the options; disposes `shared` if it fails. */
function startRuntime(
  options: ServeOptions,
  roots: readonly string[],
  lock: Awaited<ReturnType<typeof lockedFlag>>,
  policy: Awaited<ReturnType<typeof readGatePolicy>>,
  shared: ServePostgres | undefined,
  log: ServeLog,
): Promise<ServeRuntime> {
  // The user's python is asked where it lives in a child process while
  // `initialize` is answered and discovery runs (`prepareScriptInterpreters`).
  const scriptSandbox = prepareScriptInterpreters().then(() => ({
    ...sandboxOptionsFrom(options.sandbox, lock, log),
    // serve's own state (spools, sessions) and lockfile: no skill's grant reaches them.
    ownFolders: [resolve(options.stateDir), ...(options.locked ? [resolve(options.locked)] : [])],
    ...(options.warmSandbox === false && { warmIdleMs: 0 }),
  }))
  // Observed here; awaited (and its failure reported) only when scripts are set up.
  scriptSandbox.catch(() => undefined)
  return createServeRuntime({
    roots,
    ...(options.maxDepth !== undefined && { maxDepth: options.maxDepth }),
    overlays: options.overlays,
    ...(lock && { lock }),
    stateDir: options.stateDir,
    importModules: options.importModules,
    watch: options.watch,
    scripts: options.scripts,
    ...(options.undeclaredScripts === false ? { undeclaredScripts: false } : {}),
    ...(options.dynamicContext === false ? { dynamicContext: false } : {}),
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
    scriptSandbox,
    gate: createPolicyGate(policy, log),
    log,
    durableSpool: options.durableSpool,
    spoolRetention: options.spoolRetention,
    defaultChannel: options.channel,
    ...(shared && { spoolFor: shared.spoolFor }),
  }).catch(async (err) => {
    await shared?.dispose()
    throw err
  })
}

/** Serves MCP over HTTP until a signal; the sessions are shared through `shared` when given. */
async function serveHttpUntilSignal(
  http: NonNullable<ServeOptions['http']>,
  common: Parameters<typeof serveMcpHttp>[0],
  shared: ServePostgres | undefined,
  runtime: ServeRuntime,
  signal: Promise<string>,
  log: ServeLog,
): Promise<void> {
  const server = await serveMcpHttp({
    ...common,
    port: http.port,
    host: http.host,
    ...(http.token !== undefined ? { token: http.token } : {}),
    // /readyz: PostgreSQL answers, the sandbox starts; /metrics: one registry for every session.
    readiness: serveReadiness({
      ...(shared && { postgres: shared }),
      ...(runtime.probeSandbox && { probeSandbox: runtime.probeSandbox }),
    }),
    metrics: new SkillHostMetrics(),
    ...(http.healthPublic && { healthPublic: true }),
    ...(http.metricsPublic && { metricsPublic: true }),
    onSession: (e) => log(`session ${e.sessionId} ${e.kind}`, { session: e.sessionId }),
    ...http.limits,
    onLimit: (e) => log(`refused (${e.limit}, ${e.status}): ${e.message}`, { level: 'warning' }),
    ...(shared && {
      replica: shared.replica,
      catalogFeed: shared.catalogFeed,
      sessionStore: shared.sessionStore,
      onSharedError: (e: { sessionId?: string; error: unknown }) => logSharedError(log, e),
    }),
  })
  log(`listening on ${server.url.href}`)
  const why = await signal
  log(`${why}: shutting down`)
  await server.close()
}

/**
 * Runs `skillhost serve` until SIGINT/SIGTERM (or, on stdio, until stdin
 * closes), then tears everything down and resolves to the exit code. Every
 * event goes through one log (`createServeLog`, `--log-format`); with
 * `json`, a failure after the options are read is a JSON `error` event
 * too, with its code, so every stderr line parses.
 */
export async function runServe(argv: readonly string[], io: CliIo, help: string): Promise<number> {
  const options = parseServeOptions(argv)
  if (options.help) {
    // Help was asked for: stdout, as every command (nothing is served, so stdout is free).
    io.stdout(`${help}\n`)
    return 0
  }
  // One log line per event: a tool name or an error text that carries a line
  // break or a terminal control is shown escaped, never as a line of its own.
  const log = createServeLog(io, options.logFormat)
  const logged = logIo(io, options.logFormat, log)
  if (options.logFormat === 'text') return serve(options, logged, log)
  try {
    return await serve(options, logged, log)
  } catch (err) {
    const code = cliErrorCode(err)
    log(personText(err), { level: 'error', code })
    return code === 'E_CLI_USAGE' ? USAGE_STATUS : FAILURE_STATUS
  }
}

/**
 * `serve` with its options read. The stages: roots, what is served
 * (logged), the shared database (with `--postgres`), the runtime, the
 * transport until a signal, teardown.
 */
async function serve(options: ServeOptions, io: CliIo, log: ServeLog): Promise<number> {
  const roots = servedRoots(options, io)
  if (typeof roots === 'number') return roots
  const policy =
    'policyFile' in options.gate
      ? await readGatePolicy(options.gate.policyFile)
      : gatePolicyFor(options.gate.mode)
  const lock = await lockedFlag(options.locked)
  describeServe(options, roots, lock, log)
  const shared = await openShared(options, log)
  if (options.http) describeAuth(options.http, log)
  const signal = onSignal()
  const runtimeMade = startRuntime(options, roots, lock, policy, shared, log)
  const session = sessionOptions(options, log)
  // Over stdio the client's initialize is answered while discovery runs (a
  // client gives up on a slow one); its other requests wait for the runtime.
  const stdio = options.http
    ? undefined
    : await serveMcpStdio({
        ...session,
        createManager: async (scope) => (await runtimeMade).createManager(scope),
      })
  const runtime = await runtimeMade.catch(async (err) => {
    await stdio?.close()
    throw err
  })
  try {
    if (options.http) {
      // A deployer's own --workspace folder stays theirs: never mirrored to PostgreSQL.
      const mirror = shared && options.workspace === undefined
      const common = {
        ...session,
        createManager: runtime.createManager,
        ...(mirror && { workspaceStore: shared.workspaceStore }),
      }
      await serveHttpUntilSignal(options.http, common, shared, runtime, signal.promise, log)
    } else if (stdio) {
      await stdio.ready.catch(() => undefined)
      log('serving MCP on stdio')
      const why = await Promise.race([signal.promise, stdio.closed.then(() => 'stdin closed')])
      log(`${why}: shutting down`)
      await stdio.close()
      process.stdin.destroy()
    }
  } finally {
    signal.off()
    await runtime.dispose()
    await shared?.dispose()
  }
  log('shutdown complete')
  return 0
}
