import type { Tool } from '../common/tool.js'
import type { TurnContext } from '../common/turn-context.js'
import type { LoadedSkills } from './loaded-skills.js'
import { ProjectionTable } from './projection.js'
import type { SkillRecord } from './skill-record.js'
import type { SkillMiddleware } from './types.js'

/**
 * Puts the loaded skills into turn contexts and takes them out again: each
 * record's tools and body, the `companions` (`read_skill_file`) while a
 * context holds a skill, and the artifact readers from the first load of
 * the conversation on. A projection of a record that is no longer the loaded
 * one (unloaded or swapped through another context) is pruned before anything
 * is projected, so a context's registry stays truthful.
 */
export class TurnProjector {
  /** Projects every loaded skill into the turn on input and strips them all on output. */
  readonly middleware: SkillMiddleware
  readonly #loaded: LoadedSkills
  readonly #readers: readonly Tool[]
  readonly #table: ProjectionTable
  #everLoaded = false

  constructor(loaded: LoadedSkills, readers: readonly Tool[], companions: readonly Tool[]) {
    this.#loaded = loaded
    this.#readers = readers
    this.#table = new ProjectionTable(companions)
    this.middleware = {
      turnInput: async (ctx, next) => {
        this.projectAll(ctx)
        return next()
      },
      turnOutput: async (ctx, next) => {
        try {
          return await next()
        } finally {
          this.#table.stripAll(ctx)
        }
      },
    }
  }

  /** Ids whose loaded record is projected into `ctx` (stale projections left out). */
  projected(ctx: TurnContext): string[] {
    return this.#table.ids(ctx).filter((id) => this.#loaded.get(id) === this.#table.get(ctx, id))
  }

  /** True when `record` itself is what `ctx` holds under its id. */
  holds(ctx: TurnContext, record: SkillRecord): boolean {
    return this.#table.get(ctx, record.id) === record
  }

  /** Projects `record` (and the readers) into `ctx`; returns the tool names registered. */
  project(ctx: TurnContext, record: SkillRecord): string[] {
    this.#everLoaded = true
    this.#registerReaders(ctx)
    return this.#table.project(ctx, record)
  }

  /** Takes `id`'s projection out of `ctx`; returns the tool names removed. */
  strip(ctx: TurnContext, id: string): string[] {
    return this.#table.strip(ctx, id)
  }

  /**
   * Takes out of `ctx` the projections of records retired elsewhere (a skill
   * unloaded through another context). Their wrappers already refuse calls;
   * removing them keeps this context's registry truthful and frees their
   * names for a fresh load here.
   */
  pruneRetired(ctx: TurnContext): void {
    for (const id of this.#table.ids(ctx)) {
      if (this.#table.get(ctx, id) !== this.#loaded.get(id)) this.#table.strip(ctx, id)
    }
  }

  /** Prunes `ctx`, then projects every loaded skill into it. */
  projectAll(ctx: TurnContext): void {
    this.pruneRetired(ctx)
    // Once a skill has been loaded in this conversation, its results may be
    // cited by id at any later turn, so the readers stay offered after unload.
    if (this.#everLoaded) this.#registerReaders(ctx)
    for (const record of this.#loaded.records()) this.project(ctx, record)
  }

  #registerReaders(ctx: TurnContext): void {
    for (const reader of this.#readers) if (!ctx.tools.has(reader.name)) ctx.tools.register(reader)
  }
}
