import {
  BUILTIN_ARTIFACT_KINDS,
  forgeArtifactReaders,
  RESERVED_READER_NAMES,
  type SpooledArtifact,
} from '../common/artifacts/index.js'
import { renderError, SkillHostError } from '../common/errors.js'
import { trackResource } from '../common/leak-tracker.js'
import { MemorySpoolStore } from '../common/memory-spool-store.js'
import type { Tool } from '../common/tool.js'
import { createTurnContext, type TurnContext } from '../common/turn-context.js'
import {
  type ManagerWorkspace,
  SessionWorkspaceSlot,
  WORKSPACE_TOOL,
} from '../tiers/scripts/tier.js'
import type { TierForge } from '../tiers/tier-forge.js'
import { resolveArtifactClass } from './artifact-binding.js'
import { type CatalogSkill, type DiscoverySnapshot, discoverAll } from './catalog.js'
import {
  buildCatalog,
  type RefreshFailure,
  refreshOutcomes,
  searchCatalog,
  summarizeRefresh,
} from './catalog-view.js'
import { LIFECYCLE_TOOL_NAMES, READ_SKILL_FILE_TOOL } from './lifecycle-tool-names.js'
import { toLoadResult } from './load-result.js'
import { type PrepareDeps, prepareSkill } from './prepare-skill.js'
import { ProjectionTable } from './projection.js'
import { forgeReadSkillFileTool } from './read-skill-file-tool.js'
import { SerialQueue } from './serial-queue.js'
import { settleWithin } from './settle-within.js'
import type { SkillRecord } from './skill-record.js'
import { createTierForges } from './tier-forges.js'
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
  UnloadResult,
} from './types.js'
import { validateManagerConfig } from './validate-config.js'

const DEFAULT_AUTO_REFRESH_MS = 30_000
/** The most files one `skillFiles` page holds. */
const MAX_FILES_PAGE = 1_000

/**
 * Creates the plugin lifecycle manager for one conversation. The config is
 * validated first (`E_INVALID_SKILLS_CONFIG`); then every source is discovered
 * once so `catalog()` can answer synchronously.
 */
export async function createSkillManager(config: SkillManagerConfig): Promise<SkillManager> {
  const unsafe = validateManagerConfig(config)
  const manager = new Manager(config, unsafe)
  await manager.rediscover()
  manager.startAutoRefresh()
  manager.watchSources()
  return manager
}

class Manager implements SkillManager {
  readonly unsafe: readonly string[]
  readonly gate: SkillManager['gate']
  readonly spool: SkillManager['spool']
  readonly middleware: SkillManager['middleware']
  readonly #config: SkillManagerConfig
  readonly #queue = new SerialQueue()
  readonly #records = new Map<string, SkillRecord>()
  readonly #claims = new Map<string, string>()
  readonly #projections: ProjectionTable
  readonly #listeners = new Set<(event: SkillManagerEvent) => void>()
  /** Unsubscribes from sources' change events, run at dispose. */
  readonly #unsubscribes: (() => void)[] = []
  readonly #readers: readonly Tool[]
  readonly #reserved: ReadonlySet<string>
  readonly #tiers: readonly TierForge[]
  readonly #workspace: SessionWorkspaceSlot | undefined
  readonly #lifetime = new AbortController()
  readonly #teardowns = new Set<Promise<void>>()
  #snapshot: DiscoverySnapshot = { winners: new Map(), shadowed: [], skipped: [], sourceErrors: [] }
  #timer: NodeJS.Timeout | undefined
  #everLoaded = false
  #disposed: Promise<void> | undefined
  readonly #untrack = trackResource('manager', 'skill manager')

  constructor(config: SkillManagerConfig, unsafe: string[]) {
    this.#config = config
    this.unsafe = Object.freeze(unsafe)
    this.gate = config.gate
    this.spool = config.spool ?? new MemorySpoolStore()
    this.#readers = forgeArtifactReaders([
      ...BUILTIN_ARTIFACT_KINDS,
      ...Object.values(config.artifactKinds ?? {}).map((f) => f() as typeof SpooledArtifact),
    ])
    this.#reserved = new Set([
      ...RESERVED_READER_NAMES,
      ...this.#readers.map((t) => t.name),
      ...LIFECYCLE_TOOL_NAMES,
      ...(config.scripts ? Object.values(WORKSPACE_TOOL) : []),
    ])
    this.#workspace = config.scripts ? new SessionWorkspaceSlot(config.scripts) : undefined
    const workspace = this.#workspace
    this.#tiers = createTierForges(config, workspace ? () => workspace.open() : undefined)
    this.#projections = new ProjectionTable([
      forgeReadSkillFileTool((id) => this.#loadedRecord(id), config.gate),
    ])
    this.middleware = {
      turnInput: async (ctx, next) => {
        this.#projectAll(ctx)
        return next()
      },
      turnOutput: async (ctx, next) => {
        try {
          return await next()
        } finally {
          this.#projections.stripAll(ctx)
        }
      },
    }
  }

  get workspace(): ManagerWorkspace | undefined {
    return this.#workspace
  }

  catalog(): SkillCatalog {
    return buildCatalog(this.#snapshot, (id) => this.#records.get(id)?.version)
  }

  search(options: CatalogSearch = {}): CatalogPage {
    return searchCatalog(this.#snapshot, (id) => this.#records.get(id)?.version, options)
  }

  loaded(): readonly string[] {
    return [...this.#records.keys()]
  }

  loadedSkills(): readonly LoadedSkillInfo[] {
    return [...this.#records.values()].map((r) => ({
      id: r.id,
      version: r.version,
      channel: r.channel,
      tools: r.tools.map((t) => t.name),
      unavailableTools: r.unavailableTools,
    }))
  }

  projected(ctx: TurnContext): readonly string[] {
    return this.#projections
      .ids(ctx)
      .filter((id) => this.#records.get(id) === this.#projections.get(ctx, id))
  }

  createTurnContext(options: Parameters<SkillManager['createTurnContext']>[0] = {}): TurnContext {
    return createTurnContext({ ...options, spool: this.spool })
  }

  onDidChange(listener: (event: SkillManagerEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  load(id: string, ctx: TurnContext, options: LoadOptions = {}): Promise<LoadResult> {
    return this.#mutate(async () => {
      this.#pruneRetired(ctx)
      const existing = this.#records.get(id)
      if (existing && options.version !== undefined && existing.version !== options.version) {
        throw new SkillHostError(
          'E_SKILL_ALREADY_LOADED',
          `Skill '${id}' is already loaded at another version (${existing.version}); unload it first.`,
          { data: { skill: id } },
        )
      }
      if (existing) {
        if (this.#projections.get(ctx, id) === existing) {
          throw new SkillHostError(
            'E_SKILL_ALREADY_LOADED',
            `Skill '${id}' is already loaded here.`,
            {
              data: { skill: id },
            },
          )
        }
        // Initialized but not in this turn (no turnInput middleware): project it.
        return toLoadResult(existing, this.#project(ctx, existing))
      }
      const record =
        options.version === undefined
          ? await this.#prepareCurrent(id, ctx)
          : await this.#preparePinned(id, options.version, ctx)
      this.#records.set(id, record)
      for (const tool of record.tools) this.#claims.set(tool.name, id)
      const tools = this.#project(ctx, record)
      this.#emit({ kind: 'loaded', id, ctx })
      return toLoadResult(record, tools)
    })
  }

  skillFiles(id: string, query: SkillFilesQuery = {}): SkillFilePage {
    const { files } = this.#loadedRecord(id)
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
    const record = this.#loadedRecord(id)
    record.enter(READ_SKILL_FILE_TOOL)
    try {
      return await record.files.read(path)
    } finally {
      record.exit()
    }
  }

  unload(id: string, ctx: TurnContext): Promise<UnloadResult> {
    return this.#mutate(async () => {
      const record = this.#records.get(id)
      if (!record) {
        throw new SkillHostError('E_SKILL_NOT_LOADED', `Skill '${id}' is not loaded.`, {
          data: { skill: id },
        })
      }
      const removed = this.#projections.strip(ctx, id)
      this.#retire(record)
      this.#emit({ kind: 'unloaded', id, ctx })
      return { id, toolsRemoved: removed.length > 0 ? removed : record.tools.map((t) => t.name) }
    })
  }

  refresh(id?: string): Promise<RefreshResult> {
    return this.#mutate(async () => {
      const before = this.#snapshot
      const records = this.#loadedVersions()
      await this.rediscover()
      this.#emit({ kind: 'refreshed', ...(id === undefined ? {} : { id }) })
      const outcomes = refreshOutcomes(before, this.#snapshot, records, id, new Map(), new Map())
      return { ...this.#refreshSummary(id), swapped: [], failed: [], outcomes }
    })
  }

  refreshAndProject(ctx: TurnContext, id?: string): Promise<RefreshResult> {
    return this.#mutate(async () => {
      this.#pruneRetired(ctx)
      const before = this.#snapshot
      const records = this.#loadedVersions()
      await this.rediscover()
      const summary = this.#refreshSummary(id)
      const swapped: { id: string; from: string; to: string }[] = []
      const failed: { id: string; code: string; message: string }[] = []
      for (const skillId of summary.updatesAvailable) {
        const old = this.#records.get(skillId)
        const row = this.#snapshot.winners.get(skillId)
        if (!old || !row) continue
        try {
          const record = await prepareSkill(
            { id: skillId, version: row.skill.version },
            row.source,
            {
              ...this.#prepareDeps(ctx),
              replacing: new Set(old.tools.map((t) => t.name)),
            },
          )
          this.#projections.strip(ctx, skillId)
          this.#retire(old)
          this.#records.set(skillId, record)
          for (const tool of record.tools) this.#claims.set(tool.name, skillId)
          this.#project(ctx, record)
          swapped.push({ id: skillId, from: old.version, to: record.version })
          this.#emit({ kind: 'swapped', id: skillId, ctx })
        } catch (err) {
          // renderError: the model-facing text, host paths redacted, `CODE: message`.
          const text = renderError(err)
          const colon = text.indexOf(':')
          failed.push({ id: skillId, code: text.slice(0, colon), message: text.slice(colon + 2) })
        }
      }
      const failures = new Map<string, RefreshFailure>(
        failed.map((f) => [
          f.id,
          {
            code: f.code,
            message: `Its new version failed to load (${f.code}: ${f.message}), so the loaded version stays.`,
          },
        ]),
      )
      const outcomes = refreshOutcomes(
        before,
        this.#snapshot,
        records,
        id,
        new Map(swapped.map((w) => [w.id, w.to])),
        failures,
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
      if (this.#timer) clearInterval(this.#timer)
      for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe()
      // Wait for queued mutations, then retire everything that is left.
      await this.#queue.run(async () => undefined)
      const records = [...this.#records.values()]
      this.#records.clear()
      this.#claims.clear()
      for (const record of records) this.#retire(record)
      const timeoutMs = this.#config.disposeTimeoutMs ?? 5_000
      const outcome = await settleWithin(Promise.all([...this.#teardowns]), timeoutMs)
      if (outcome === 'timeout') {
        // Calls that never settle must not keep workspaces and guests alive.
        await Promise.all(records.map((r) => r.forceTeardown(reportTeardownError)))
      }
      // Last: no script call can still be writing to it.
      await this.#workspace?.dispose().catch(reportTeardownError)
      this.#listeners.clear()
    })()
    this.#untrack(this.#disposed)
    return this.#disposed
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose()
  }

  /** Runs one discovery pass and replaces the snapshot atomically. */
  async rediscover(): Promise<void> {
    this.#snapshot = await discoverAll(this.#config.sources, this.#lifetime.signal)
  }

  /**
   * Rediscovers (catalog only) whenever a source says it changed, and tells
   * listeners with a `refreshed` event; never swaps a loaded version.
   */
  watchSources(): void {
    for (const source of this.#config.sources) {
      const unsubscribe = source.onDidChange?.(() => {
        if (this.#disposed) return
        void this.#queue
          .run(async () => {
            if (this.#disposed) return
            await this.rediscover()
            this.#emit({ kind: 'refreshed' })
          })
          .catch(() => undefined)
      })
      if (unsubscribe) this.#unsubscribes.push(unsubscribe)
    }
  }

  startAutoRefresh(): void {
    const auto = this.#config.autoRefresh
    if (!auto) return
    const ms = auto === true ? DEFAULT_AUTO_REFRESH_MS : auto.intervalMs
    this.#timer = setInterval(() => {
      // Catalog knowledge only: never swaps a loaded version.
      void this.#queue.run(() => this.rediscover()).catch(() => undefined)
    }, ms)
    this.#timer.unref()
  }

  #mutate<T>(task: () => Promise<T>): Promise<T> {
    if (this.#disposed) {
      return Promise.reject(
        new SkillHostError('E_SKILL_MANAGER_DISPOSED', 'The skill manager has been disposed.'),
      )
    }
    return this.#queue.run(task)
  }

  /** The record of a loaded skill; `E_SKILL_NOT_LOADED`, saying to load it again, otherwise. */
  #loadedRecord(id: string): SkillRecord {
    const record = typeof id === 'string' ? this.#records.get(id) : undefined
    if (!record) {
      const shown = typeof id === 'string' ? id.slice(0, 80) : `(${typeof id})`
      throw new SkillHostError(
        'E_SKILL_NOT_LOADED',
        `Skill '${shown}' is not loaded, so its files cannot be read. Load it (again) with load_skill.`,
        { data: { skill: shown } },
      )
    }
    return record
  }

  #row(id: string): CatalogSkill {
    const row = this.#snapshot.winners.get(id)
    if (!row) {
      throw new SkillHostError(
        'E_SKILL_NOT_FOUND',
        `No skill '${String(id).slice(0, 80)}' in the catalog; call list_skills to see what exists.`,
        {
          data: { skill: String(id).slice(0, 80) },
        },
      )
    }
    return row
  }

  /**
   * Prepares the catalog's version of `id`. When the source says that version
   * is gone (the skill changed since the last discovery), rediscovers once and
   * tries the new version, so a model never has to refresh by hand to load.
   */
  async #prepareCurrent(id: string, ctx: TurnContext): Promise<SkillRecord> {
    const row = this.#row(id)
    try {
      return await prepareSkill(
        { id, version: row.skill.version },
        row.source,
        this.#prepareDeps(ctx),
      )
    } catch (err) {
      if (!SkillHostError.is(err, 'E_SKILL_NOT_FOUND')) throw err
      await this.rediscover()
      const fresh = this.#row(id)
      if (fresh.skill.version === row.skill.version && fresh.source === row.source) throw err
      return prepareSkill(
        { id, version: fresh.skill.version },
        fresh.source,
        this.#prepareDeps(ctx),
      )
    }
  }

  /**
   * Prepares `id` at exactly `version`. A catalog holding another version is
   * rediscovered once (another process may have changed the skill since this
   * manager last looked); still another version, or no skill, is
   * `E_SKILL_VERSION_GONE`.
   */
  async #preparePinned(id: string, version: string, ctx: TurnContext): Promise<SkillRecord> {
    if (this.#snapshot.winners.get(id)?.skill.version !== version) await this.rediscover()
    const row = this.#snapshot.winners.get(id)
    const gone = (available: string | undefined): SkillHostError =>
      new SkillHostError(
        'E_SKILL_VERSION_GONE',
        `Skill '${String(id).slice(0, 80)}' was loaded at version ${String(version).slice(0, 80)}, which its source no longer holds (${available === undefined ? 'the skill is not in the catalog' : `it now has ${available}`}). Start a new session and load it again.`,
        {
          data: {
            skill: String(id).slice(0, 80),
            version: String(version).slice(0, 80),
            ...(available === undefined ? {} : { available }),
          },
        },
      )
    if (!row || row.skill.version !== version) throw gone(row?.skill.version)
    try {
      return await prepareSkill({ id, version }, row.source, this.#prepareDeps(ctx))
    } catch (err) {
      if (!SkillHostError.is(err, 'E_SKILL_NOT_FOUND')) throw err
      // The source changed since this manager's last discovery: say what it holds now.
      await this.rediscover()
      throw gone(this.#snapshot.winners.get(id)?.skill.version)
    }
  }

  #prepareDeps(ctx: TurnContext): PrepareDeps {
    return {
      gate: this.gate,
      spool: this.spool,
      defaultChannel: this.#config.defaultChannel ?? 'handle',
      reserved: this.#reserved,
      claimed: this.#claims,
      hostTools: ctx.tools,
      artifactClassFor: (skill, tool) => resolveArtifactClass(this.#config, skill, tool),
      tiers: this.#tiers,
      signal: AbortSignal.any([ctx.abortSignal, this.#lifetime.signal]),
    }
  }

  #project(ctx: TurnContext, record: SkillRecord): string[] {
    this.#everLoaded = true
    this.#registerReaders(ctx)
    return this.#projections.project(ctx, record)
  }

  /**
   * Takes out of `ctx` the projections of records retired elsewhere (a skill
   * unloaded through another context). Their wrappers already refuse calls;
   * removing them keeps this context's registry truthful and frees their
   * names for a fresh load here.
   */
  #pruneRetired(ctx: TurnContext): void {
    for (const id of this.#projections.ids(ctx)) {
      if (this.#projections.get(ctx, id) !== this.#records.get(id)) this.#projections.strip(ctx, id)
    }
  }

  #projectAll(ctx: TurnContext): void {
    this.#pruneRetired(ctx)
    // Once a skill has been loaded in this conversation, its results may be
    // cited by id at any later turn, so the readers stay offered after unload.
    if (this.#everLoaded) this.#registerReaders(ctx)
    for (const record of this.#records.values()) this.#project(ctx, record)
  }

  #registerReaders(ctx: TurnContext): void {
    for (const reader of this.#readers) if (!ctx.tools.has(reader.name)) ctx.tools.register(reader)
  }

  #retire(record: SkillRecord): void {
    if (this.#records.get(record.id) === record) this.#records.delete(record.id)
    for (const tool of record.tools)
      if (this.#claims.get(tool.name) === record.id) this.#claims.delete(tool.name)
    const teardown = record.retire(reportTeardownError)
    this.#teardowns.add(teardown)
    void teardown.finally(() => this.#teardowns.delete(teardown))
  }

  /** The loaded records' ids and versions, captured before a refresh swaps any. */
  #loadedVersions(): { id: string; version: string }[] {
    return [...this.#records.values()].map((r) => ({ id: r.id, version: r.version }))
  }

  #refreshSummary(id?: string): Omit<RefreshResult, 'swapped' | 'failed' | 'outcomes'> {
    return summarizeRefresh(this.#snapshot, this.#records.values(), id)
  }

  #emit(event: SkillManagerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch {
        // A listener must not break a lifecycle transition that already happened.
      }
    }
  }
}

function reportTeardownError(err: unknown): void {
  process.emitWarning(
    `skillhost: a skill teardown step failed: ${String((err as Error)?.message ?? err)}`,
  )
}
