import type { Tool } from '../common/tool.js'
import type { TurnContext } from '../common/turn-context.js'
import type { SkillRecord } from './skill-record.js'

/** What one skill put into one turn context, so it can be taken out exactly. */
interface Projection {
  readonly record: SkillRecord
  readonly tools: Tool[]
}

/** What a context holds of this table: its projections, and the companions registered for them. */
interface ContextEntry {
  readonly projections: Map<string, Projection>
  companions: Tool[]
}

/**
 * Tracks which records are projected into which turn contexts. Contexts are
 * held weakly: a finished turn is forgotten with its context. `companions`
 * (the manager's `read_skill_file`) are registered in a context while it
 * holds at least one projection and unregistered when it holds none; a
 * companion whose name a host tool already holds there is left out.
 */
export class ProjectionTable {
  readonly #byContext = new WeakMap<TurnContext, ContextEntry>()
  readonly #companions: readonly Tool[]

  constructor(companions: readonly Tool[] = []) {
    this.#companions = companions
  }

  /** Ids projected into `ctx`, in projection order. */
  ids(ctx: TurnContext): string[] {
    return [...(this.#byContext.get(ctx)?.projections.keys() ?? [])]
  }

  /** The record projected into `ctx` under `id`, if any. */
  get(ctx: TurnContext, id: string): SkillRecord | undefined {
    return this.#byContext.get(ctx)?.projections.get(id)?.record
  }

  /**
   * Registers the record's tools and adds its body to `ctx`. A tool whose name
   * a host tool already holds in this context is left out (the host's tool
   * wins); the returned list says which tools were registered.
   */
  project(ctx: TurnContext, record: SkillRecord): string[] {
    let entry = this.#byContext.get(ctx)
    if (!entry) {
      entry = { projections: new Map(), companions: [] }
      this.#byContext.set(ctx, entry)
    }
    this.#stripOne(ctx, entry, record.id)
    const registered: Tool[] = []
    for (const tool of record.tools) {
      if (ctx.tools.has(tool.name)) continue
      ctx.tools.register(tool)
      registered.push(tool)
    }
    if (record.body) ctx.retrievables.add(record.body)
    entry.projections.set(record.id, { record, tools: registered })
    for (const companion of this.#companions) {
      if (ctx.tools.has(companion.name)) continue
      ctx.tools.register(companion)
      entry.companions.push(companion)
    }
    return registered.map((t) => t.name)
  }

  /**
   * Unregisters exactly the tool objects this projection registered and
   * removes its body; the companions too when it was the context's last.
   */
  strip(ctx: TurnContext, id: string): string[] {
    const entry = this.#byContext.get(ctx)
    if (!entry) return []
    const removed = this.#stripOne(ctx, entry, id)
    if (entry.projections.size === 0) {
      for (const companion of entry.companions) ctx.tools.unregister(companion)
      entry.companions = []
    }
    return removed
  }

  /** Strips every projection from `ctx`. */
  stripAll(ctx: TurnContext): void {
    for (const id of this.ids(ctx)) this.strip(ctx, id)
  }

  #stripOne(ctx: TurnContext, entry: ContextEntry, id: string): string[] {
    const projection = entry.projections.get(id)
    if (!projection) return []
    entry.projections.delete(id)
    const removed: string[] = []
    for (const tool of projection.tools) if (ctx.tools.unregister(tool)) removed.push(tool.name)
    if (projection.record.body) ctx.retrievables.remove(projection.record.body.retrievable.id)
    return removed
  }
}
