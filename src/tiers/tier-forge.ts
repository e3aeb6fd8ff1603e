import type { DisposableStore } from '../common/disposable.js'
import type { Tool } from '../common/tool.js'
import type { TurnContext } from '../common/turn-context.js'
import type { PermissionOutcome } from '../skill-model/permission-request.js'
import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import type { SkillDescriptor, SkillRef, SkillSource } from '../sources/types.js'
import type { CallGuard } from './skill-tool-envelope.js'

/**
 * What a tier forge sees of one loaded skill version: its identity and
 * descriptor, the store that owns what the forge creates for it (workspaces,
 * guests), and the guard every forged tool counts its calls through. The
 * manager's record implements it; a tier never sees the manager itself.
 */
export interface ForgeTarget extends CallGuard {
  readonly id: string
  readonly version: string
  /** What the source serves this version under (a shadowed copy's `copy` key included): read files with it. */
  readonly source: SkillRef
  readonly descriptor: SkillDescriptor
  readonly store: DisposableStore
  /**
   * What became of the skill's permission request, set by the script forge
   * (left unset when the skill requests nothing); the load result names it.
   */
  permissions?: readonly PermissionOutcome[]
}

/** Forges one tier's tools for a loaded skill; `names` and `unavailable` feed preflight. */
export interface TierForge {
  /** Tool names the tier will register for `descriptor`, for preflight. Empty when the tier is off. */
  names(descriptor: SkillDescriptor): string[]
  /** Declared tools the tier cannot offer on this host, under their would-be names, and why. */
  unavailable(descriptor: SkillDescriptor): UnavailableTool[]
  /**
   * Tools the tier could offer this skill from its files but this host's
   * options withhold (the script tier's `run_<skill>_script` under
   * `undeclared: 'deny'`), judged at load from the files the skill ships.
   */
  withheld?(descriptor: SkillDescriptor, files: SkillFileHeads): Promise<UnavailableTool[]>
  /** `ctx` is the turn the load runs in: a tier that asks the gate at load asks it there. */
  forge(
    target: ForgeTarget,
    source: SkillSource,
    signal: AbortSignal,
    ctx?: TurnContext,
  ): Promise<Tool[]>
  /**
   * Runs a loaded skill's dynamic-context commands (`` !`command` `` of its
   * body), in order, each gated and contained like a script call of the
   * skill; one outcome per command. Only the script tier has it. Rejects only
   * for an abort; every other failure is that command's `not-run` outcome.
   */
  dynamicContext?(
    target: ForgeTarget,
    source: SkillSource,
    commands: readonly string[],
    call: DynamicContextCall,
  ): Promise<DynamicContextOutcome[]>
}

/** A skill's files as `TierForge.withheld` reads them: their paths, and each one's first bytes. */
export interface SkillFileHeads {
  readonly paths: readonly string[]
  /** The start of one file as text (enough for a shebang); empty when it cannot be read. */
  readHead(path: string): Promise<string>
}

/** What one load's dynamic-context commands run with. */
export interface DynamicContextCall {
  /** The turn of the load: the gate is asked with it. */
  readonly ctx: TurnContext
  /** `$1`, `$2`… of every command: the load's arguments, split into words. */
  readonly params: readonly string[]
  /** Variables every command sees: the skill folder's names, `ARGUMENTS`. */
  readonly env: Readonly<Record<string, string>>
  readonly signal: AbortSignal
}

/** One dynamic-context command's outcome: its output, or why it did not run. */
export type DynamicContextOutcome =
  | { readonly ran: true; readonly text: string }
  | { readonly ran: false; readonly reason: string }
