import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import type { McpSessionScope } from '../../adapters/mcp/index.js'
import {
  FileSpoolStore,
  personText,
  pruneSpoolDirectories,
  SkillHostError,
  type SpoolRetention,
  type SpoolStore,
  type ToolGate,
} from '../../common/index.js'
import {
  createSkillManager,
  FileSystemSkillSource,
  type SkillChannel,
  type SkillLock,
  type SkillManager,
  type SkillManagerConfig,
} from '../../index.js'
import { createQuickJsGuest, type QuickJsGuestPool } from '../../tiers/isolated/index.js'
import {
  createScriptSandbox,
  type ScriptSandbox,
  type ScriptSandboxOptions,
  type SkillScriptConfig,
} from '../../tiers/scripts/index.js'
import { checkWorkspaceDir, withWorkspaceDir } from '../../tiers/scripts/internal.js'
import { plural } from '../shared/plural.js'
import type { ServeLog } from './serve-log.js'
import { DEFAULT_SPOOL_RETENTION } from './serve-options.js'

/** What the embedded server needs to build its managers. */
export interface ServeRuntimeOptions {
  readonly roots: readonly string[]
  /** Folder levels searched below each root (`limits.maxDepth`); the source's default when absent. */
  readonly maxDepth?: number
  /** The deployer's overlay sidecar directories (see `FileSystemSkillSource`). */
  readonly overlays?: readonly string[]
  /** A lockfile: only skills pinned as they are load (see `FileSystemSkillSource({ lock })`). */
  readonly lock?: SkillLock
  readonly stateDir: string
  readonly importModules: boolean
  /**
   * Watch the roots (default true): sessions share the source's last
   * discovery while nothing changed, and learn of changes as they happen.
   */
  readonly watch?: boolean
  readonly gate: ToolGate
  readonly defaultChannel?: SkillChannel
  /** Turn tier 3 off without probing (e.g. for tests or `--no-scripts`). */
  readonly scripts: boolean
  /** Let a loaded skill's files run without a sidecar (`run_<skill>_script`). Default true. */
  readonly undeclaredScripts?: boolean
  /** Run a loaded skill's dynamic-context commands (`` !`command` ``) at load. Default true. */
  readonly dynamicContext?: boolean
  /**
   * A directory every session uses as its workspace (`--workspace`), e.g. the
   * user's project; default a fresh private one per session.
   */
  readonly workspace?: string
  /**
   * The deployer's interpreters and read paths (`--interpreter`,
   * `--read-path`). A setup they make invalid fails the server rather than
   * turning scripts off. A promise is awaited once discovery is done, so
   * what it waits for (the user's python asked where it lives) overlaps the walk.
   */
  readonly scriptSandbox?: ScriptSandboxOptions | Promise<ScriptSandboxOptions>
  readonly log: ServeLog
  /**
   * Keep each session's spool folder after the session closes and after
   * shutdown. Default false: a session's spool is removed when it closes.
   */
  readonly durableSpool?: boolean
  /** The bound applied to the spool folders at startup and after each session closes. */
  readonly spoolRetention?: SpoolRetention
  /**
   * Each session's spool, made by the caller (`--postgres`: a shared store
   * tagged with the session id) instead of a folder under `stateDir/spool`.
   * What it holds outlives the session here: other replicas may serve it.
   */
  readonly spoolFor?: (sessionId: string) => SpoolStore
}

// A session id names a folder only if it is a plain name; otherwise a fresh UUID does.
const FOLDER_NAME = /^[A-Za-z0-9_-]{1,128}$/

/** Everything shared by the server's sessions, and how to tear it down. */
export interface ServeRuntime extends AsyncDisposable {
  /**
   * Makes one session's manager: its own spool directory
   * (`stateDir/spool/<session id>`), the shared source, pool and sandbox.
   * The spool is released (removed unless durable) when `scope.disposables`
   * is disposed, or at `dispose()` for a manager made without a scope.
   */
  createManager(scope?: McpSessionScope): Promise<SkillManager>
  /** Where the session spool folders live: `stateDir/spool`. */
  readonly spoolRoot: string
  /** Why scripts are off, or undefined when they are on. */
  readonly scriptsOff: string | undefined
  /** With scripts on: starts one sandboxed process and checks it ran (readiness). */
  readonly probeSandbox: (() => Promise<void>) | undefined
  /**
   * Disposes the guest pool, the sandbox handle and the workspace, and
   * releases every spool still open. Idempotent.
   */
  dispose(): Promise<void>
}

/**
 * The sandbox's configuration as serve runs it: undeclared scripts and
 * dynamic context on unless turned off, and a deployer's workspace directory
 * added to the session policy's write set (it must be writable there to be
 * mounted).
 */
function scriptConfig(sandbox: ScriptSandbox, options: ServeRuntimeOptions): SkillScriptConfig {
  return withWorkspaceDir(
    {
      ...sandbox.config,
      undeclared: options.undeclaredScripts === false ? 'deny' : 'allow',
      dynamicContext: options.dynamicContext === false ? 'off' : 'run',
    },
    options.workspace,
  )
}

/**
 * The first discovery, before any session: every session after it starts
 * from the source's result (replayed while watching and nothing changed).
 * Logs how long it took, and what is not watched.
 */
async function discoverOnce(source: FileSystemSkillSource, log: (line: string) => void) {
  const started = performance.now()
  let skills = 0
  let problems = 0
  for await (const _ of source.discover({ report: () => void problems++ })) skills++
  const ms = Math.round(performance.now() - started)
  log(`discovered ${plural(skills, 'skill')} in ${ms} ms (${plural(problems, 'problem')} reported)`)
  const watch = source.watchState()
  if (watch) {
    log(
      `watching ${plural(watch.folders, 'folder')} for changes${watch.unwatched ? `; ${watch.unwatched}, re-read on each discovery` : ''}`,
    )
  }
}

/**
 * Logs what a new manager's catalog holds and how long the manager took to
 * be ready. Not a discovery time: `discoverOnce` logs the one discovery; a
 * manager starts from it (replayed while watching) and builds its catalog.
 */
function logDiscovery(manager: SkillManager, ms: number, log: (line: string) => void): void {
  // One row, not the whole catalog: this runs for every session.
  const { total, counts } = manager.search({ limit: 1 })
  const served = total - counts.shadowed
  const failed = counts.skipped
  const skippedNote = failed > 0 ? `, ${failed} skipped` : ''
  log(`session catalog: ${plural(served, 'skill')}${skippedNote} (ready in ${Math.round(ms)} ms)`)
}

/**
 * The bubblewrap sandbox for scripts, when it works here; otherwise scripts
 * are off and `scriptsOff` says why (the person's voice, naming the folder
 * to fix). A deployer's own mistake (a bad config, a widened policy, a
 * --workspace the sandbox cannot write) rejects instead.
 */
async function startScripts(
  options: ServeRuntimeOptions,
): Promise<{ scripts: ScriptSandbox | undefined; scriptsOff: string | undefined }> {
  if (!options.scripts) return { scripts: undefined, scriptsOff: 'disabled by --no-scripts' }
  let scripts: ScriptSandbox | undefined
  try {
    // Workspaces and scratch live in a fresh temporary base (not the state
    // directory): the sandboxed child runs as another uid and must traverse it.
    scripts = await createScriptSandbox(await options.scriptSandbox)
    // A --workspace scripts could not write is refused now, with advice, not at the first call.
    if (options.workspace !== undefined) await checkWorkspaceDir(options.workspace)
    options.log(`scripts on: bubblewrap sandbox, workspace ${scripts.baseDir}`)
    return { scripts, scriptsOff: undefined }
  } catch (err) {
    await scripts?.dispose()
    // A deployer's own mistake is theirs to fix, not a reason to serve without scripts.
    const code = SkillHostError.isInstance(err) ? err.code : undefined
    if (
      code === 'E_INVALID_SKILLS_CONFIG' ||
      code === 'E_SKILL_SCRIPT_POLICY_WIDENED' ||
      code === 'E_SKILL_WORKSPACE_FAILED'
    )
      throw err
    return { scripts: undefined, scriptsOff: personText(err) }
  }
}

/** Prunes closed sessions' spool folders to `retention`, one pass at a time, never touching `live`. */
function spoolPruner(
  spoolRoot: string,
  retention: NonNullable<ServeRuntimeOptions['spoolRetention']>,
  live: ReadonlyMap<string, unknown>,
  report: (what: string, err: unknown) => void,
  log: (line: string) => void,
): () => Promise<void> {
  let pruning: Promise<void> = Promise.resolve()
  return () => {
    pruning = pruning
      .then(async () => {
        const { removed } = await pruneSpoolDirectories(spoolRoot, { ...retention, keep: live })
        if (removed.length > 0) log(`spool: pruned ${plural(removed.length, 'old session folder')}`)
      })
      .catch((err) => report('spool prune', err))
    return pruning
  }
}

/** The sandbox handle's probe (readiness), when scripts are on and the handle has one. */
function sandboxProbe(scripts: ScriptSandbox | undefined): ServeRuntime['probeSandbox'] {
  const handle = scripts?.config.handle
  return handle?.probe && (() => handle.probe?.() ?? Promise.resolve())
}

/** The manager config of one session: the shared source, guest pool and sandbox, its own spool. */
function sessionManagerConfig(
  options: ServeRuntimeOptions,
  source: FileSystemSkillSource,
  pool: QuickJsGuestPool,
  scripts: ScriptSandbox | undefined,
  spool: SpoolStore,
): SkillManagerConfig {
  return {
    sources: [source],
    gate: options.gate,
    spool,
    ...(options.defaultChannel ? { defaultChannel: options.defaultChannel } : {}),
    isolation: {
      resolveGuest: pool.resolveGuest,
      maxTimeoutSeconds: 30,
      defaultTimeoutSeconds: 5,
    },
    ...(scripts ? { scripts: scriptConfig(scripts, options) } : {}),
  }
}

/**
 * Builds the embedded defaults of `skillhost serve`: one filesystem source
 * over `roots` (module imports only with `importModules`), a QuickJS guest
 * pool for isolated tools, the bubblewrap sandbox for scripts when it works
 * here (otherwise scripts are off and the reason is logged), and a file spool
 * per session under `stateDir/spool`. Retention: a session's spool folder is
 * removed when the session closes (and at shutdown) unless `durableSpool`;
 * at startup and after each close, folders of closed sessions are pruned to
 * `spoolRetention` (default `DEFAULT_SPOOL_RETENTION`).
 */
export async function createServeRuntime(options: ServeRuntimeOptions): Promise<ServeRuntime> {
  const { log } = options
  const source = new FileSystemSkillSource({
    roots: [...options.roots],
    importModules: options.importModules,
    watch: options.watch !== false,
    ...(options.overlays && { overlays: options.overlays }),
    ...(options.lock && { lock: options.lock }),
    ...(options.maxDepth !== undefined && { limits: { maxDepth: options.maxDepth } }),
  })
  await discoverOnce(source, log)
  const pool: QuickJsGuestPool = createQuickJsGuest()
  const { scripts, scriptsOff } = await startScripts(options).catch(async (err: unknown) => {
    source.close()
    await pool.dispose()
    throw err
  })
  if (scriptsOff) log(`scripts off: ${scriptsOff}`, { level: 'warning' })

  const spoolRoot = join(options.stateDir, 'spool')
  const retention = options.spoolRetention ?? DEFAULT_SPOOL_RETENTION
  const report = (what: string, err: unknown): void =>
    log(`${what}: ${personText(err)}`, { level: 'warning' })
  // Open spools by folder name, each with its release step.
  const live = new Map<string, () => Promise<void>>()
  const prune = spoolPruner(spoolRoot, retention, live, report, log)
  await prune()

  const managerConfig = (spool: SpoolStore) =>
    sessionManagerConfig(options, source, pool, scripts, spool)

  const managerFor = async (spool: SpoolStore): Promise<SkillManager> => {
    const started = performance.now()
    const manager = await createSkillManager(managerConfig(spool))
    logDiscovery(manager, performance.now() - started, log)
    return manager
  }

  const createManager = async (scope?: McpSessionScope): Promise<SkillManager> => {
    const shared = options.spoolFor
    if (shared) return managerFor(shared(scope?.sessionId ?? randomUUID()))
    const given = scope?.sessionId
    const name =
      given !== undefined && FOLDER_NAME.test(given) && !live.has(given) ? given : randomUUID()
    const spool = new FileSpoolStore({ directory: join(spoolRoot, name) })
    const release = async (): Promise<void> => {
      if (live.get(name) !== release) return
      live.delete(name)
      if (!options.durableSpool) await spool.destroy().catch((err) => report('spool', err))
      await prune()
    }
    live.set(name, release)
    scope?.disposables.add(release)
    try {
      return await managerFor(spool)
    } catch (err) {
      await release()
      throw err
    }
  }

  let disposed: Promise<void> | undefined
  const dispose = (): Promise<void> => {
    disposed ??= (async () => {
      source.close()
      const results = await Promise.allSettled([
        pool.dispose(),
        scripts?.dispose(),
        ...[...live.values()].map((release) => release()),
      ])
      for (const r of results)
        if (r.status === 'rejected')
          log(`shutdown: ${String(r.reason?.message ?? r.reason)}`, { level: 'error' })
    })()
    return disposed
  }
  const runtime = { createManager, spoolRoot, scriptsOff, dispose }
  return { ...runtime, probeSandbox: sandboxProbe(scripts), [Symbol.asyncDispose]: dispose }
}
