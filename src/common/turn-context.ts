import { randomUUID } from 'node:crypto'
import { MemorySpoolStore } from './memory-spool-store.js'
import { RetrievableSet } from './retrievable.js'
import type { SpoolStore } from './spool-store.js'
import { ToolRegistry } from './tool-registry.js'

/**
 * What a single turn (one model dispatch) sees: a fresh tool registry, the
 * retrievables projected into the model's context, the spool where results
 * live beyond the turn, and the turn's abort signal.
 */
export interface TurnContext {
  readonly id: string
  readonly tools: ToolRegistry
  readonly retrievables: RetrievableSet
  readonly spool: SpoolStore
  readonly abortSignal: AbortSignal
}

/** Options for `createTurnContext`. Share `spool` across turns so results outlive them. */
export interface TurnContextOptions {
  abortSignal?: AbortSignal
  spool?: SpoolStore
  id?: string
}

/** Builds a fresh turn context: empty registry and projections, the given spool and signal. */
export function createTurnContext(options: TurnContextOptions = {}): TurnContext {
  return Object.freeze({
    id: options.id ?? randomUUID(),
    tools: new ToolRegistry(),
    retrievables: new RetrievableSet(),
    spool: options.spool ?? new MemorySpoolStore(),
    abortSignal: options.abortSignal ?? new AbortController().signal,
  })
}
