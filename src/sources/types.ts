import type { Tool } from '../common/tool.js'
import type { IgnoredKey } from '../manifest/claude-code-keys.js'
import type {
  SkillIsolatedToolDeclaration,
  SkillRef,
  SkillScriptDeclaration,
} from '../skill-model/declarations.js'
import type { SkillPermissionRequest } from '../skill-model/permission-request.js'
import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import type { SkillPin } from './lock/skill-pins.js'
import type { SkillFileManifest, SkillManifestOptions } from './reading/skill-manifest.js'
import type { PluginFiles } from './reading/skill-plugin.js'

export type {
  SkillIsolatedToolDeclaration,
  SkillRef,
  SkillScriptDeclaration,
  SkillScriptParamDeclaration,
} from '../skill-model/declarations.js'
export type {
  PermissionOutcome,
  PermissionOutcomeReason,
  SkillPermissionRequest,
} from '../skill-model/permission-request.js'
export type {
  UnavailableTool,
  UnavailableToolReason,
} from '../skill-model/unavailable-tool.js'
export type { PluginFiles } from './reading/skill-plugin.js'

/**
 * Routing metadata only: what a catalog shows before anything is loaded. A
 * source yields one per skill it can serve; `warnings` says what the lenient
 * validator let through.
 */
export interface DiscoveredSkill extends SkillRef {
  readonly name: string
  readonly description: string
  readonly license?: string
  readonly compatibility?: string
  readonly metadata?: Readonly<Record<string, string>>
  /** Carried from the manifest; never enforced. */
  readonly allowedTools?: string
  /** Where the skill lives, for host-side display (e.g. the SKILL.md path). Never shown to a model by the manager. */
  readonly location?: string
  readonly warnings?: readonly string[]
  /**
   * `disable-model-invocation: true` in the frontmatter (Claude Code's key):
   * the skill is kept out of every model-facing catalog and the model's
   * `load_skill` refuses it, while the host can still `manager.load` it.
   */
  readonly disableModelInvocation?: true
  /**
   * With a lockfile in force (`FileSystemSkillSource({ lock })`): whether the
   * skill's content is what the lock pins. A `changed-since-pinned` skill is
   * listed but refuses to load (`E_SKILL_NOT_PINNED`).
   */
  readonly pin?: SkillPin
}

/** A skill a source saw but could not serve, and why. */
export interface SkillProblem {
  /** Model-safe location: the skill folder name or a root-relative path. */
  readonly location: string
  /** Host-side path of what failed (e.g. the skill folder), for display by hosts and the CLI. Never shown to a model by the manager. */
  readonly hostPath?: string
  /** The skill id, when the problem concerns a skill whose manifest named it. */
  readonly id?: string
  readonly code: string
  readonly message: string
  readonly severity: 'error' | 'warning'
  /**
   * For `E_SKILL_SHADOWED`: the shadowed copy's own catalog row, when the
   * source still serves it by its `copy` key (a `FileSystemSkillSource`
   * without a lock does). The manager lists it as a shadowed row with a ref.
   */
  readonly shadowedCopy?: DiscoveredSkill
}

/** How far a discovery has come: running totals since it started. */
export interface DiscoveryProgress {
  /** Folders read so far (skill folders included). */
  readonly folders: number
  /** Skill folders found so far (valid or not). */
  readonly skills: number
}

/** Options for `SkillSource.discover`. */
export interface DiscoverOptions {
  readonly signal?: AbortSignal
  /** Receives skills skipped (and warnings raised) during discovery. */
  readonly report?: (problem: SkillProblem) => void
  /**
   * Receives running totals while discovery walks, throttled (a
   * `FileSystemSkillSource` calls it about every 10 ms of walking, and once
   * at the end); for progress displays. Optional for sources to honour.
   */
  readonly onProgress?: (progress: DiscoveryProgress) => void
}

/**
 * Everything needed to load a skill, resolved only on load. `tools` are live
 * module tools (tier 1) that the manager always rebuilds before use.
 */
export interface SkillDescriptor extends SkillRef {
  readonly name: string
  readonly description: string
  readonly channel?: 'inline' | 'handle'
  readonly tools?: readonly Tool[]
  readonly isolatedTools?: readonly SkillIsolatedToolDeclaration[]
  readonly scripts?: readonly SkillScriptDeclaration[]
  readonly license?: string
  readonly compatibility?: string
  readonly metadata?: Readonly<Record<string, string>>
  readonly allowedTools?: string
  /**
   * Tools the skill declares that the source itself will not serve, and why
   * (a `FileSystemSkillSource` without `importModules` names the module it
   * did not import). The manager adds them to the load result.
   */
  readonly unavailableTools?: readonly UnavailableTool[]
  /** Claude Code frontmatter keys the skill uses that skillhost does not honour, and why. */
  readonly ignored?: readonly IgnoredKey[]
  /**
   * What the skill's scripts ask to read, write or reach (`agents/openai.yaml`
   * or `skillhost.yaml` `permissions`). A request, never a grant: tier 3
   * grants an entry only when the session policy allows it and the gate
   * approves the requested profile (see `PermissionOutcome`).
   */
  readonly permissions?: SkillPermissionRequest
  /**
   * For a skill inside a Claude Code plugin (see `SkillSnapshot.plugin`): the
   * skill folder's place in the plugin (`skills/x`). A loaded body's
   * `${CLAUDE_PLUGIN_ROOT}` then names the plugin root as scripts see it.
   */
  readonly plugin?: { readonly skillPath: string }
}

/** Size and version of a skill's body or one of its files. */
export interface SkillFileStat {
  readonly size: number
  readonly version: string
}

/** Options for source reads. */
export interface SourceReadOptions {
  readonly signal?: AbortSignal
}

/**
 * The repository/loader seam. `discover` lists what a source can serve;
 * `descriptor`, `read`, `stat` and `list` resolve one skill at one version.
 * A ref whose version is no longer current fails with `E_SKILL_NOT_FOUND`;
 * a path that escapes the skill fails with `E_SKILL_SOURCE_PATH_REJECTED`.
 * `runSkillSourceConformance` checks an implementation against this contract.
 */
export interface SkillSource {
  readonly id: string
  discover(options?: DiscoverOptions): AsyncIterable<DiscoveredSkill>
  /**
   * Optional: the same skills as `discover` all at once (problems still go
   * to `report`, in order), for callers that take them all anyway, such as a
   * manager building its catalog: no promise per skill. The array may be
   * shared between callers and must not be mutated.
   */
  discoverBatch?(options?: DiscoverOptions): Promise<readonly DiscoveredSkill[]>
  descriptor(ref: SkillRef, options?: SourceReadOptions): Promise<SkillDescriptor>
  /** No path = the body (SKILL.md without frontmatter). */
  read(
    ref: SkillRef,
    path?: string,
    options?: SourceReadOptions,
  ): Promise<ReadableStream<Uint8Array>>
  stat(ref: SkillRef, path?: string): Promise<SkillFileStat>
  /** Every shipped file but the body, as normalized relative paths. */
  list?(ref: SkillRef): Promise<readonly string[]>
  /**
   * Every shipped file but the body from one look at the skill, with a reader
   * bound to that look: materializing N files then costs one scan, not N.
   * Each read must return only bytes the snapshot validated (a file changed
   * since is an error), and a stale ref fails like `read`. Optional: without
   * it, callers use `list` and `read`.
   */
  snapshot?(ref: SkillRef, options?: SourceReadOptions): Promise<SkillSnapshot>
  /**
   * Optional: every file of the skill at `ref` (SKILL.md included) with its
   * size and `sha256:` digest, its frontmatter as written, and a reader that
   * serves only bytes matching those digests. What the MCP Skills Extension
   * publishes; a source without it is left out of `skills/list`.
   */
  manifest?(ref: SkillRef, options?: SkillManifestOptions): Promise<SkillFileManifest>
  /**
   * Optional: fetches now what a load of `ref` will read, so the load itself
   * reads from memory. A manager calls it before the load takes its place on
   * the queue that every load shares, so a slow source (a remote server)
   * delays only its own loads. Rejects as the read it stands for would.
   */
  prefetch?(ref: SkillRef, options?: SourceReadOptions): Promise<void>
  /**
   * Optional: calls `listener` when what `discover` would yield may have
   * changed (a watched folder changed). A manager rediscovers (catalog only,
   * like `autoRefresh`) and tells its adapters. Returns the unsubscribe function.
   */
  onDidChange?(listener: () => void): () => void
}

/** One consistent view of a skill's files; see `SkillSource.snapshot`. */
export interface SkillSnapshot {
  /** Every shipped file but the body, as sorted normalized relative paths. */
  readonly paths: readonly string[]
  /** The bytes of one of `paths`, checked against the snapshot. */
  read(path: string): Promise<Uint8Array>
  /**
   * The size in bytes the snapshot saw for one of `paths` (undefined for any
   * other path). Optional: without it, callers that list sizes ask `stat`.
   */
  size?(path: string): number | undefined
  /**
   * SKILL.md as written (frontmatter and body), checked like `read`. A skill
   * copy carries it, so a script that reads its own SKILL.md finds it, as it
   * does in the skill's folder on disk. Optional: a source without a file
   * behind its body leaves it out.
   */
  manifest?(): Promise<Uint8Array>
  /**
   * Optional: when the skill sits in a Claude Code plugin (a folder above it,
   * within the source's root, holding `.claude-plugin/plugin.json`), the
   * plugin's other files, read and checked like the skill's (under a lock,
   * held to the entry's `plugin.digest`). A skill copy carries them, so the
   * skill sees its plugin root at the same relative place (`../../shared/`).
   * Undefined for a skill outside a plugin. A method, so listing a skill
   * never scans its plugin: only a skill copy asks.
   */
  plugin?(): Promise<PluginFiles | undefined>
}
