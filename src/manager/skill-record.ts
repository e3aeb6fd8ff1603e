import { DisposableStore } from '../common/disposable.js'
import { SkillHostError } from '../common/errors.js'
import type { ProjectedRetrievable } from '../common/retrievable.js'
import type { Tool } from '../common/tool.js'
import type { PermissionOutcome } from '../skill-model/permission-request.js'
import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import type { SkillDescriptor, SkillRef } from '../sources/types.js'
import type { ForgeTarget } from '../tiers/tier-forge.js'
import { SkillFiles } from './skill-files.js'
import type { ResolvedSkillChannel } from './types.js'

/**
 * One initialized version of one skill: its descriptor, its body projection,
 * its host-owned tool wrappers and everything they own (workspace, guests).
 * A record is retired exactly once (on unload, swap or dispose); after that
 * every wrapper refuses new calls with `E_SKILL_NOT_LOADED`, and the owned
 * resources are torn down as soon as in-flight calls drain.
 */
export class SkillRecord implements ForgeTarget {
  readonly id: string
  readonly version: string
  /** What the source serves this version under: id, version and, for a copy, its copy key. */
  readonly source: SkillRef
  /**
   * The ref it was loaded by, as the catalog shows it: the plain id for its
   * id's winner, the qualified ref for a shadowed copy. A refresh and a
   * restored session follow it, so they load the same copy again.
   */
  readonly ref: string
  readonly descriptor: SkillDescriptor
  /** How the body reaches the model; prepareSkill settles it once the body is rendered. */
  channel: ResolvedSkillChannel
  /** The `arguments` its body was built with; a swap or restore passes them on. */
  readonly arguments: string | undefined
  readonly store = new DisposableStore()
  tools: readonly Tool[] = []
  /** Declared tools this host does not offer, under their would-be names, and why. */
  unavailableTools: readonly UnavailableTool[] = []
  /** What became of the skill's permission request (tier 3 sets it); unset when it requests nothing. */
  permissions?: readonly PermissionOutcome[]
  body: ProjectedRetrievable | undefined
  /** The files the skill ships besides SKILL.md; readable only while the record is not retired. */
  files: SkillFiles
  #inFlight = 0
  #retired = false
  #drained: Promise<void> | undefined
  #resolveDrained: (() => void) | undefined
  #teardown: Promise<void> | undefined

  constructor(
    descriptor: SkillDescriptor,
    channel: ResolvedSkillChannel,
    loadedBy: { readonly ref: SkillRef; readonly catalogRef: string; readonly args?: string },
  ) {
    this.id = descriptor.id
    this.version = descriptor.version
    this.source = loadedBy.ref
    this.ref = loadedBy.catalogRef
    this.descriptor = descriptor
    this.channel = channel
    this.arguments = loadedBy.args
    this.files = SkillFiles.empty(descriptor.id)
  }

  /** True once unloaded, swapped out or disposed. */
  get retired(): boolean {
    return this.#retired
  }

  /** Calls currently running through this record's wrappers. */
  get inFlight(): number {
    return this.#inFlight
  }

  /** Counts a call in; refuses when retired. Pair with `exit` in a `finally`. */
  enter(toolName: string): void {
    if (this.#retired) {
      throw new SkillHostError(
        'E_SKILL_NOT_LOADED',
        `Skill '${this.id}' is no longer loaded, so '${toolName}' cannot run. Load it again with load_skill.`,
        { data: { skill: this.id, tool: toolName } },
      )
    }
    this.#inFlight += 1
  }

  /** Counts a call out; the last one out of a retired record starts teardown. */
  exit(): void {
    this.#inFlight -= 1
    if (this.#inFlight === 0 && this.#resolveDrained) this.#resolveDrained()
  }

  /** Resolves when no call is in flight. */
  drained(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve()
    this.#drained ??= new Promise<void>((resolve) => {
      this.#resolveDrained = () => {
        this.#drained = undefined
        this.#resolveDrained = undefined
        resolve()
      }
    })
    return this.#drained
  }

  /**
   * Retires the record and schedules teardown for when in-flight calls drain.
   * Returns the teardown promise; it never rejects (failures are reported to
   * `onError`), so an unload is never undone by a failing disposal.
   */
  retire(onError: (err: unknown) => void): Promise<void> {
    this.#retired = true
    this.#teardown ??= this.drained().then(() => this.store.dispose().catch(onError))
    return this.#teardown
  }

  /** Tears down now, whether or not calls are still running (used by bounded dispose). */
  forceTeardown(onError: (err: unknown) => void): Promise<void> {
    this.#retired = true
    return this.store.dispose().catch(onError)
  }
}
