import type { Tool } from '../common/tool.js'
import type { TurnContext } from '../common/turn-context.js'
import type { SkillRecord } from './skill-record.js'

/** What one skill put into one turn context, so it can be taken out exactly. */
interface Projection {
  readonly record: SkillRecord
  readonly tools: Tool[]
}

/**
 * Tracks which records are projected into which turn contexts. Contexts are
 * held weakly: a finished turn is forgotten with its context.
 */
export class ProjectionTable {
  readonly #byContext = new WeakMap<TurnContext, Map<string, Projection>>()

  /** Ids projected into `ctx`, in projection order. */
  ids(ctx: TurnContext): string[] {
    return [...(this.#byContext.get(ctx)?.keys() ?? [])]
  }

  /** The record projected into `ctx` under `id`, if any. */
  get(ctx: TurnContext, id: string): SkillRecord | undefined {
    return this.#byContext.get(ctx)?.get(id)?.record
  }

  /**
   * Registers the record's tools and adds its body to `ctx`. A tool whose name
   * a host tool already holds in this context is left out (the host's tool
   * wins); the returned list says which tools were registered.
   */
  project(ctx: TurnContext, record: SkillRecord): string[] {
    this.strip(ctx, record.id)
    const registered: Tool[] = []
    for (const tool of record.tools) {
      if (ctx.tools.has(tool.name)) continue
      ctx.tools.register(tool)
      registered.push(tool)
    }
    if (record.body) ctx.retrievables.add(record.body)
    let table = this.#byContext.get(ctx)
    if (!table) {
      table = new Map()
      this.#byContext.set(ctx, table)
    }
    table.set(record.id, { record, tools: registered })
    return registered.map((t) => t.name)
  }

  /** Unregisters exactly the tool objects this projection registered and removes its body. */
  strip(ctx: TurnContext, id: string): string[] {
    const table = this.#byContext.get(ctx)
    const projection = table?.get(id)
    if (!table || !projection) return []
    table.delete(id)
    const removed: string[] = []
    for (const tool of projection.tools) if (ctx.tools.unregister(tool)) removed.push(tool.name)
    if (projection.record.body) ctx.retrievables.remove(projection.record.body.retrievable.id)
    return removed
  }

  /** Strips every projection from `ctx`. */
  stripAll(ctx: TurnContext): void {
    for (const id of this.ids(ctx)) this.strip(ctx, id)
  }
}
