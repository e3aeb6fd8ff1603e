import { SkillHostError } from '../common/errors.js'
import { settleWithin } from './settle-within.js'
import type { SkillRecord } from './skill-record.js'
import type { LoadedSkillInfo } from './types.js'

/**
 * The skills one manager has loaded: one record per id, which record claims
 * each tool name, and the teardowns of retired records still draining. Only
 * the manager's serialized mutations change it, so "two loads claiming one
 * tool name: exactly one wins" holds; reads may come from anywhere.
 */
export class LoadedSkills {
  readonly #records = new Map<string, SkillRecord>()
  readonly #claims = new Map<string, string>()
  readonly #teardowns = new Set<Promise<void>>()
  readonly #onTeardownError: (err: unknown) => void

  /** `onTeardownError` hears every failed teardown step; none is ever thrown. */
  constructor(onTeardownError: (err: unknown) => void) {
    this.#onTeardownError = onTeardownError
  }

  /** Tool name → id of the loaded skill whose record holds it. */
  get claims(): ReadonlyMap<string, string> {
    return this.#claims
  }

  /** The record loaded under `id`, if any. */
  get(id: string): SkillRecord | undefined {
    return this.#records.get(id)
  }

  /** Loaded ids, in load order. */
  ids(): string[] {
    return [...this.#records.keys()]
  }

  /** Loaded records, in load order. */
  records(): IterableIterator<SkillRecord> {
    return this.#records.values()
  }

  /** The record loaded by exactly `ref` (a plain id, or a copy's qualified ref), if any. */
  byRef(ref: string): SkillRecord | undefined {
    const record = this.#records.get(ref)
    if (record?.ref === ref) return record
    for (const r of this.#records.values()) if (r.ref === ref) return r
    return undefined
  }

  /** The version loaded by exactly `ref` (see `byRef`), or undefined. */
  versionOf(ref: string): string | undefined {
    return this.byRef(ref)?.version
  }

  /** The loaded records' ids, refs and versions, captured before a refresh swaps any. */
  versions(): { id: string; ref: string; version: string }[] {
    return [...this.#records.values()].map((r) => ({ id: r.id, ref: r.ref, version: r.version }))
  }

  /** What `SkillManager.loadedSkills` reports, in load order. */
  infos(): LoadedSkillInfo[] {
    return [...this.#records.values()].map((r) => ({
      id: r.id,
      ref: r.ref,
      version: r.version,
      channel: r.channel,
      tools: r.tools.map((t) => t.name),
      unavailableTools: r.unavailableTools,
      ...(r.arguments === undefined ? {} : { arguments: r.arguments }),
      ...(r.permissions?.length ? { permissions: r.permissions } : {}),
    }))
  }

  /** The record loaded under an id (or by a copy's ref); `E_SKILL_NOT_LOADED`, saying to load it again, otherwise. */
  require(id: string): SkillRecord {
    const record = typeof id === 'string' ? (this.#records.get(id) ?? this.byRef(id)) : undefined
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

  /** Makes `record` the loaded version of its skill and lets it claim its tools' names. */
  add(record: SkillRecord): void {
    this.#records.set(record.id, record)
    for (const tool of record.tools) this.#claims.set(tool.name, record.id)
  }

  /**
   * Takes `record` out (if it is still the loaded one), frees the names it
   * claimed and retires it; its teardown runs once its calls drain.
   */
  retire(record: SkillRecord): void {
    if (this.#records.get(record.id) === record) this.#records.delete(record.id)
    for (const tool of record.tools)
      if (this.#claims.get(tool.name) === record.id) this.#claims.delete(tool.name)
    const teardown = record.retire(this.#onTeardownError)
    this.#teardowns.add(teardown)
    void teardown.finally(() => this.#teardowns.delete(teardown))
  }

  /**
   * Retires every loaded record and waits up to `timeoutMs` for all pending
   * teardowns; past that, the records retired here are torn down at once, so
   * calls that never settle cannot keep workspaces and guests alive.
   */
  async retireAll(timeoutMs: number): Promise<void> {
    const records = [...this.#records.values()]
    this.#records.clear()
    this.#claims.clear()
    for (const record of records) this.retire(record)
    const outcome = await settleWithin(Promise.all([...this.#teardowns]), timeoutMs)
    if (outcome === 'timeout') {
      await Promise.all(records.map((r) => r.forceTeardown(this.#onTeardownError)))
    }
  }
}
