import { SkillHostError } from '../common/errors.js'
import { quoteName } from '../common/escape-text.js'
import { trackResource, withResourceOwner } from '../common/leak-tracker.js'
import { MemorySpoolStore } from '../common/memory-spool-store.js'
import { createTurnContext, type TurnContext } from '../common/turn-context.js'
import type { ManagerWorkspace } from '../tiers/scripts/tier.js'
import { refreshOutcomes } from './catalog-view.js'
import { READ_SKILL_FILE_TOOL } from './lifecycle-tool-names.js'
import { LiveCatalog } from './live-catalog.js'
import { toLoadResult } from './load-result.js'
import { LoadedSkills } from './loaded-skills.js'
import { ManagerEvents } from './manager-events.js'
import type { AvailableSkillsOptions } from './model-catalog.js'
import { prefetchRow } from './prepare-skill.js'
import { forgeReadSkillFileTool } from './read-skill-file-tool.js'
import type { RenderedAvailableSkills } from './render-available-skills.js'
import type { ScriptTier } from './script-tier.js'
import { SerialQueue } from './serial-queue.js'
import { checkSkillArguments } from './skill-arguments.js'
import { SkillLoader } from './skill-loader.js'
import { swapUpdates } from './swap-updates.js'
import { type TierWiring, wireTiers } from './tier-wiring.js'
import { TurnProjector } from './turn-projector.js'
import type {
  CatalogPage,
  CatalogSearch,
  LoadedSkillInfo,
  LoadOptions,
  LoadResult,
  RefreshResult,
  SkillCatalog,
  SkillFileContent,
  SkillFilePage,
  SkillFilesQuery,
  SkillManager,
  SkillManagerConfig,
  SkillManagerEvent,
  SkillManifestQuery,
  UnloadResult,
} from './types.js'
import { validateManagerConfig } from './validate-config.js'

/** The most files one `skillFiles` page holds. */
const MAX_FILES_PAGE = 1_000

/**
 * Creates the plugin lifecycle manager for one conversation. The config is
 * validated first (`E_INVALID_SKILLS_CONFIG`); then every source is discovered
 * once so `catalog()` can answer synchronously.
 */
export async function createSkillManager(config: SkillManagerConfig): Promise<SkillManager> {
  const { unsafe, scriptTier } = await validateManagerConfig(config)
  const manager = new Manager(config, unsafe, scriptTier)
  await manager.start()
  return manager
}

/**
 * The facade `createSkillManager` returns. It owns one of each part (the live
 * catalog, the loaded skills, the loader, the turn projector, the tier
 * wiring) and runs every mutation through one queue, so the parts never see
 * two transitions interleave.
 */
class Manager implements SkillManager {
  readonly unsafe: readonly string[]
  readonly gate: SkillManager['gate']
  readonly spool: SkillManager['spool']
  readonly middleware: SkillManager['middleware']
  readonly #config: SkillManagerConfig
  readonly #queue = new SerialQueue()
  readonly #lifetime = new AbortController()
  readonly #events = new ManagerEvents()
  readonly #catalog: LiveCatalog
  readonly #loaded = new LoadedSkills(reportTeardownError)
  readonly #wiring: TierWiring
  readonly #projector: TurnProjector
  readonly #loader: SkillLoader
  #disposed: Promise<void> | undefined
  // The manager owns what its loads, refreshes and unloads make (`#mutate`).
  readonly #untrack = trackResource('manager', 'skill manager', undefined, this)

  constructor(config: SkillManagerConfig, unsafe: string[], scriptTier: ScriptTier | undefined) {
    this.#config = config
    this.unsafe = Object.freeze(unsafe)
    this.gate = config.gate
    this.spool = config.spool ?? new MemorySpoolStore()
    this.#catalog = new LiveCatalog(config.sources, this.#lifetime.signal, config, this.#events)
    this.#wiring = wireTiers(config, scriptTier)
    this.#projector = new TurnProjector(this.#loaded, this.#wiring.readers, [
      forgeReadSkillFileTool((id) => this.#loaded.require(id), config.gate),
    ])
    this.middleware = this.#projector.middleware
    this.#loader = new SkillLoader({
      config,
      gate: this.gate,
      spool: this.spool,
      catalog: this.#catalog,
      loaded: this.#loaded,
      wiring: this.#wiring,
      lifetime: this.#lifetime.signal,
    })
  }

  /** Discovers every source once, then starts the auto-refresh timer and follows the sources' changes. */
  async start(): Promise<void> {
    await this.#catalog.rediscover()
    this.#catalog.autoRefresh(this.#config.autoRefresh, this.#queue)
    this.#catalog.watch(this.#queue, () => this.#events.emit({ kind: 'refreshed' }))
  }

  get workspace(): ManagerWorkspace | undefined {
    return this.#wiring.workspace
  }

  catalog(): SkillCatalog {
    return this.#catalog.catalog((id) => this.#loaded.versionOf(id))
  }

  search(options: CatalogSearch = {}): CatalogPage {
    return this.#catalog.search((id) => this.#loaded.versionOf(id), options)
  }

  availableSkills(options?: AvailableSkillsOptions): RenderedAvailableSkills {
    return this.#catalog.model.render(options)
  }

  loaded(): readonly string[] {
    return this.#loaded.ids()
  }

  loadedSkills(): readonly LoadedSkillInfo[] {
    return this.#loaded.infos()
  }

  projected(ctx: TurnContext): readonly string[] {
    return this.#projector.projected(ctx)
  }

  createTurnContext(options: Parameters<SkillManager['createTurnContext']>[0] = {}): TurnContext {
    return createTurnContext({ ...options, spool: this.spool })
  }

  onDidChange(listener: (event: SkillManagerEvent) => void): () => void {
    return this.#events.on(listener)
  }

  load(ref: string, ctx: TurnContext, options: LoadOptions = {}): Promise<LoadResult> {
    const row = this.#disposed ? undefined : this.#catalog.find(ref) // prefetched off the queue
    return prefetchRow(row).then(() => this.#load(ref, ctx, options))
  }

  #load(ref: string, ctx: TurnContext, options: LoadOptions): Promise<LoadResult> {
    return this.#mutate(async () => {
      this.#projector.pruneRetired(ctx)
      if (options.arguments !== undefined) checkSkillArguments(options.arguments)
      // What is loaded by this very ref answers first: a loaded skill may have left the catalog.
      const target = this.#loaded.byRef(ref) ?? this.#catalog.resolve(ref)
      const id = 'row' in target ? target.row.skill.id : target.id
      const existing = this.#loaded.get(id)
      if (existing) {
        if (existing.ref !== target.ref) throw anotherCopyLoaded(id, existing.ref)
        checkSameLoad(id, existing, options)
        if (this.#projector.holds(ctx, existing)) {
          throw new SkillHostError(
            'E_SKILL_ALREADY_LOADED',
            `Skill '${id}' is already loaded here.`,
            {
              data: { skill: id },
            },
          )
        }
        // Initialized but not in this turn (no turnInput middleware): project it.
        return toLoadResult(
          existing,
          this.#projector.project(ctx, existing),
          this.#wiring.scriptTier,
        )
      }
      const record =
        options.version === undefined
          ? await this.#loader.current(target.ref, ctx, options.arguments)
          : await this.#loader.pinned(target.ref, options.version, ctx, options.arguments)
      this.#loaded.add(record)
      const tools = this.#projector.project(ctx, record)
      this.#events.emit({ kind: 'loaded', id, ctx })
      return toLoadResult(record, tools, this.#wiring.scriptTier)
    })
  }

  skillFiles(id: string, query: SkillFilesQuery = {}): SkillFilePage {
    const { files } = this.#loaded.require(id)
    const under = query.under ?? '.'
    const folder = files.folder(under)
    if (folder === undefined) throw files.notFound(under)
    const offset = query.offset ?? 0
    const limit = Math.min(query.limit ?? MAX_FILES_PAGE, MAX_FILES_PAGE)
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1) {
      throw new SkillHostError(
        'E_TOOL_INVALID_ARGS',
        'offset must be an integer of at least 0 and limit one of at least 1.',
      )
    }
    return files.page(folder, offset, limit)
  }

  async readSkillFile(id: string, path: string): Promise<SkillFileContent> {
    const record = this.#loaded.require(id)
    record.enter(READ_SKILL_FILE_TOOL)
    try {
      return await record.files.read(path)
    } finally {
      record.exit()
    }
  }

  skillManifest(ref: string, options: SkillManifestQuery = {}) {
    return this.#catalog.manifest(ref, options)
  }

  unload(ref: string, ctx: TurnContext): Promise<UnloadResult> {
    return this.#mutate(async () => {
      // By id (whichever copy is loaded), or by the ref it was loaded with.
      const record = this.#loaded.get(ref) ?? this.#loaded.byRef(ref)
      if (!record) throw notLoaded(ref)
      const id = record.id
      const removed = this.#projector.strip(ctx, id)
      this.#loaded.retire(record)
      this.#events.emit({ kind: 'unloaded', id, ctx })
      return { id, toolsRemoved: removed.length > 0 ? removed : record.tools.map((t) => t.name) }
    })
  }

  refresh(id?: string): Promise<RefreshResult> {
    return this.#mutate(async () => {
      const before = this.#catalog.snapshot
      const records = this.#loaded.versions()
      await this.#catalog.rediscover()
      this.#events.emit({ kind: 'refreshed', ...(id === undefined ? {} : { id }) })
      const after = this.#catalog.snapshot
      const outcomes = refreshOutcomes(before, after, records, id, new Map(), new Map())
      return { ...this.#refreshSummary(id), swapped: [], failed: [], outcomes }
    })
  }

  refreshAndProject(ctx: TurnContext, id?: string): Promise<RefreshResult> {
    return this.#mutate(async () => {
      this.#projector.pruneRetired(ctx)
      const before = this.#catalog.snapshot
      const records = this.#loaded.versions()
      await this.#catalog.rediscover()
      // The catalog may have changed, as after `refresh`: catalog views hear of it.
      this.#events.emit({ kind: 'refreshed', ...(id === undefined ? {} : { id }) })
      const summary = this.#refreshSummary(id)
      const { swapped, failed, kept } = await swapUpdates(summary.updatesAvailable, ctx, {
        loaded: this.#loaded,
        loader: this.#loader,
        projector: this.#projector,
        events: this.#events,
      })
      const outcomes = refreshOutcomes(
        before,
        this.#catalog.snapshot,
        records,
        id,
        new Map(swapped.map((w) => [w.id, w.to])),
        kept,
      )
      return {
        ...summary,
        updatesAvailable: summary.updatesAvailable.filter((s) => !swapped.some((w) => w.id === s)),
        swapped,
        failed,
        outcomes,
      }
    })
  }

  dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      this.#lifetime.abort()
      this.#catalog.stop()
      // Wait for queued mutations, then retire everything that is left.
      await this.#queue.run(async () => undefined)
      await this.#loaded.retireAll(this.#config.disposeTimeoutMs ?? 5_000)
      // Last: no script call can still be writing to it.
      await this.#wiring.workspace?.dispose().catch(reportTeardownError)
      this.#events.clear()
    })()
    this.#untrack(this.#disposed)
    return this.#disposed
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose()
  }

  #mutate<T>(task: () => Promise<T>): Promise<T> {
    if (this.#disposed) {
      return Promise.reject(
        new SkillHostError('E_SKILL_MANAGER_DISPOSED', 'The skill manager has been disposed.'),
      )
    }
    return withResourceOwner(this, () => this.#queue.run(task))
  }

  #refreshSummary(id?: string): Omit<RefreshResult, 'swapped' | 'failed' | 'outcomes'> {
    return this.#catalog.summarize(this.#loaded.records(), id)
  }
}

/** A second load of a loaded skill asks for what is loaded: the same arguments, no other version. */
function checkSameLoad(
  id: string,
  existing: { readonly arguments?: string | undefined; readonly version: string },
  options: LoadOptions,
): void {
  const other =
    options.arguments !== existing.arguments
      ? 'with other arguments'
      : options.version !== undefined && existing.version !== options.version
        ? `at another version (${existing.version})`
        : undefined
  if (other === undefined) return
  throw new SkillHostError(
    'E_SKILL_ALREADY_LOADED',
    `Skill '${id}' is already loaded ${other}; unload it first.`,
    { data: { skill: id } },
  )
}

/** Tool names derive from the id: two copies of one id cannot be loaded side by side. */
function anotherCopyLoaded(id: string, loadedRef: string): SkillHostError {
  const which = loadedRef === id ? 'its winner, by id' : `ref ${loadedRef}`
  return new SkillHostError(
    'E_SKILL_ALREADY_LOADED',
    `Another copy of skill '${id}' is loaded (${which}); unload it first (unload_skill with its id), then load this one.`,
    { data: { skill: id, loadedRef } },
  )
}

function reportTeardownError(err: unknown): void {
  process.emitWarning(
    `skillhost: a skill teardown step failed: ${String((err as Error)?.message ?? err)}`,
  )
}

/** `E_SKILL_NOT_LOADED` for `ref`: the caller's text cut and quoted, never a raw echo of a long or hostile ref. */
function notLoaded(ref: string): SkillHostError {
  const shown = quoteName(String(ref).slice(0, 80))
  return new SkillHostError('E_SKILL_NOT_LOADED', `Skill ${shown} is not loaded.`, {
    data: { skill: String(ref).slice(0, 80) },
  })
}
