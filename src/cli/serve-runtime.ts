import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { FileSpoolStore } from '../common/file-spool-store.js'
import type { ToolGate } from '../common/gate.js'
import { createSkillManager } from '../manager/create-skill-manager.js'
import type { SkillChannel, SkillManager } from '../manager/types.js'
import { createScriptSandbox, type ScriptSandbox } from '../sandbox/index.js'
import { FileSystemSkillSource } from '../sources/index.js'
import { createQuickJsGuest, type QuickJsGuestPool } from '../tiers/isolated/index.js'

/** What the embedded server needs to build its managers. */
export interface ServeRuntimeOptions {
  readonly roots: readonly string[]
  readonly stateDir: string
  readonly importModules: boolean
  readonly gate: ToolGate
  readonly defaultChannel?: SkillChannel
  /** Turn tier 3 off without probing (e.g. for tests or `--no-scripts`). */
  readonly scripts: boolean
  readonly log: (line: string) => void
}

/** Everything shared by the server's sessions, and how to tear it down. */
export interface ServeRuntime extends AsyncDisposable {
  /** Makes one session's manager: its own spool directory, the shared source, pool and sandbox. */
  createManager(): Promise<SkillManager>
  /** Why scripts are off, or undefined when they are on. */
  readonly scriptsOff: string | undefined
  /** Disposes the guest pool, the sandbox handle and the workspace. Idempotent. */
  dispose(): Promise<void>
}

/**
 * Builds the embedded defaults of `skillhost serve`: one filesystem source
 * over `roots` (module imports only with `importModules`), a QuickJS guest
 * pool for isolated tools, the bubblewrap sandbox for scripts when it works
 * here (otherwise scripts are off and the reason is logged), and a file spool
 * per session under `stateDir/spool`.
 */
export async function createServeRuntime(options: ServeRuntimeOptions): Promise<ServeRuntime> {
  const { log } = options
  const source = new FileSystemSkillSource({
    roots: [...options.roots],
    importModules: options.importModules,
  })
  const pool: QuickJsGuestPool = createQuickJsGuest()
  let scripts: ScriptSandbox | undefined
  let scriptsOff: string | undefined = options.scripts ? undefined : 'disabled by --no-scripts'
  if (options.scripts) {
    try {
      // Workspaces and scratch live in a fresh temporary base (not the state
      // directory): the sandboxed child runs as another uid and must traverse it.
      scripts = await createScriptSandbox()
      log(`scripts on: bubblewrap sandbox, workspace ${scripts.baseDir}`)
    } catch (err) {
      scriptsOff = err instanceof Error ? err.message : String(err)
    }
  }
  if (scriptsOff) log(`scripts off: ${scriptsOff}`)

  const createManager = (): Promise<SkillManager> =>
    createSkillManager({
      sources: [source],
      gate: options.gate,
      spool: new FileSpoolStore({ directory: join(options.stateDir, 'spool', randomUUID()) }),
      ...(options.defaultChannel ? { defaultChannel: options.defaultChannel } : {}),
      isolation: {
        resolveGuest: pool.resolveGuest,
        maxTimeoutSeconds: 30,
        defaultTimeoutSeconds: 5,
      },
      ...(scripts ? { scripts: scripts.config } : {}),
    })

  let disposed: Promise<void> | undefined
  const dispose = (): Promise<void> => {
    disposed ??= (async () => {
      const results = await Promise.allSettled([pool.dispose(), scripts?.dispose()])
      for (const r of results)
        if (r.status === 'rejected') log(`shutdown: ${String(r.reason?.message ?? r.reason)}`)
    })()
    return disposed
  }
  return { createManager, scriptsOff, dispose, [Symbol.asyncDispose]: dispose }
}
