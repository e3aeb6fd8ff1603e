import { SkillHostError } from '../common/errors.js'
import { quoteName } from '../common/escape-text.js'
import { traced } from '../common/tracing.js'
import { parseSkillRef } from '../skill-model/skill-copy-ref.js'
import type { SkillFileManifest } from '../sources/reading/skill-manifest.js'
import type { SkillSource } from '../sources/types.js'
import { type CatalogSkill, type DiscoverySnapshot, discoverAll } from './catalog.js'
import {
  buildCatalog,
  type LoadedRef,
  type LoadedVersionOf,
  rowOf,
  searchCatalog,
  summarizeRefresh,
} from './catalog-view.js'
import type { ManagerEvents } from './manager-events.js'
import { ModelCatalog } from './model-catalog.js'
import type { SerialQueue } from './serial-queue.js'
import type {
  CatalogPage,
  CatalogSearch,
  SkillCatalog,
  SkillManagerConfig,
  SkillManifestQuery,
} from './types.js'

const DEFAULT_AUTO_REFRESH_MS = 30_000

/**
 * One manager's current knowledge of its sources: the last discovery
 * snapshot, replaced whole by each pass so `catalog()` answers synchronously
 * and never sees half a pass. Passes started by a source's change event or
 * the auto-refresh timer run on the manager's mutation queue and only ever
 * change catalog knowledge, never a loaded version.
 */
export class LiveCatalog {
  readonly #sources: readonly SkillSource[]
  /** The manager's lifetime: aborted first at dispose, it stops discovery and watching. */
  readonly #signal: AbortSignal
  /** Unsubscribes from sources' change events, run at `stop`. */
  readonly #unsubscribes: (() => void)[] = []
  #snapshot: DiscoverySnapshot = {
    winners: new Map(),
    shadowed: [],
    copies: new Map(),
    skipped: [],
    sourceErrors: [],
  }
  #timer: NodeJS.Timeout | undefined

  /** The model's `<available_skills>` block over this catalog (`SkillManager.availableSkills`). */
  readonly model: ModelCatalog

  constructor(
    sources: readonly SkillSource[],
    signal: AbortSignal,
    config: Pick<SkillManagerConfig, 'catalog'> = {},
    events?: ManagerEvents,
  ) {
    this.#sources = sources
    this.#signal = signal
    this.model = new ModelCatalog(config.catalog, {
      token: () => this.#snapshot,
      // Loaded state is not part of the block: loads and unloads leave its bytes alone.
      entries: () =>
        searchCatalog(this.#snapshot, () => undefined, { forModel: true }, this.model.hidden)
          .entries,
    })
    // Use in this session ranks the next rendering of the model's catalog.
    events?.on((e) => {
      if (e.kind === 'loaded' && e.id !== undefined) this.model.used(e.id)
    })
  }

  /** The last complete discovery pass. */
  get snapshot(): DiscoverySnapshot {
    return this.#snapshot
  }

  /** Runs one discovery pass (span `skillhost.discovery`) and replaces the snapshot atomically. */
  async rediscover(): Promise<void> {
    this.#snapshot = await traced('skillhost.discovery', {}, async (span) => {
      const snapshot = await discoverAll(this.#sources, this.#signal)
      span.note({ count: snapshot.winners.size, failures: snapshot.sourceErrors.length })
      return snapshot
    })
  }

  /**
   * The row `ref` names and the ref a load keeps for it: the winner of a
   * plain id (kept as the id), or the copy a qualified ref indexes (kept as
   * that ref, or as the plain id when the copy is its id's winner now).
   * `E_SKILL_NOT_FOUND`, pointing at list_skills, otherwise; a malformed
   * ref is never repeated in the message.
   */
  resolve(ref: string): { readonly row: CatalogSkill; readonly ref: string } {
    const snapshot = this.#snapshot
    const winner = snapshot.winners.get(ref)
    if (winner) return { row: winner, ref }
    const parsed = parseSkillRef(ref)
    if (parsed.kind === 'id') {
      throw new SkillHostError(
        'E_SKILL_NOT_FOUND',
        `No skill ${quoteName(ref.slice(0, 80))} in the catalog; call list_skills to see what exists.`,
        { data: { skill: ref.slice(0, 80) } },
      )
    }
    const row = snapshot.copies.get(ref)
    if (!row) {
      throw new SkillHostError(
        'E_SKILL_NOT_FOUND',
        'No skill copy has that ref in the catalog (it may have moved or gone); call list_skills with a query to see the refs there are.',
        { data: { reason: 'unknown-ref' } },
      )
    }
    const id = row.skill.id
    return { row, ref: snapshot.winners.get(id) === row ? id : ref }
  }

  /** `SkillManager.skillManifest`: the manifest of the row `ref` names, as its source publishes it. */
  async manifest(ref: string, options: SkillManifestQuery): Promise<SkillFileManifest | undefined> {
    const { skill, source } = this.resolve(ref).row
    if (options.forModel && skill.disableModelInvocation === true) return undefined
    const { forModel: _, ...read } = options
    return source.manifest?.(skill, read)
  }

  /** The row `ref` (a plain id or a qualified ref) names now, or undefined. */
  find(ref: string): CatalogSkill | undefined {
    return rowOf(this.#snapshot, ref)
  }

  /** Every row of the current snapshot, with the loaded state `loadedVersionOf` reports. */
  catalog(loadedVersionOf: LoadedVersionOf): SkillCatalog {
    return buildCatalog(this.#snapshot, loadedVersionOf)
  }

  /** One page of the current snapshot matching `options`. */
  search(loadedVersionOf: LoadedVersionOf, options: CatalogSearch): CatalogPage {
    return searchCatalog(this.#snapshot, loadedVersionOf, options, this.model.hidden)
  }

  /** Which ids the current snapshot covers for `id`, and which of `records` lag it. */
  summarize(
    records: Iterable<LoadedRef>,
    id?: string,
  ): { refreshed: string[]; updatesAvailable: string[] } {
    return summarizeRefresh(this.#snapshot, records, id)
  }

  /**
   * Rediscovers (catalog only) on `queue` whenever a source says it changed,
   * then calls `onRefreshed`; never swaps a loaded version. At most one pass
   * per source waits on the queue: a change told while one waits is covered
   * by it (the pass has not read anything yet), so a source that keeps
   * telling cannot fill the queue that loads share.
   */
  watch(queue: SerialQueue, onRefreshed: () => void): void {
    for (const source of this.#sources) {
      let waiting = false
      const unsubscribe = source.onDidChange?.(() => {
        if (this.#signal.aborted || waiting) return
        waiting = true
        void queue
          .run(async () => {
            waiting = false
            if (this.#signal.aborted) return
            await this.rediscover()
            onRefreshed()
          })
          .catch(() => {
            waiting = false
          })
      })
      if (unsubscribe) this.#unsubscribes.push(unsubscribe)
    }
  }

  /** Rediscovers on `queue` every interval the setting names (30 s for `true`); off when unset. */
  autoRefresh(setting: SkillManagerConfig['autoRefresh'], queue: SerialQueue): void {
    if (!setting) return
    const ms = setting === true ? DEFAULT_AUTO_REFRESH_MS : setting.intervalMs
    this.#timer = setInterval(() => {
      // Catalog knowledge only: never swaps a loaded version.
      void queue.run(() => this.rediscover()).catch(() => undefined)
    }, ms)
    this.#timer.unref()
  }

  /** Stops the timer and unsubscribes from every source; passes already queued find the lifetime aborted. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer)
    for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe()
  }
}
