import type { ToolGate } from '../common/gate.js'
import type { SpoolStore } from '../common/spool-store.js'
import type { TurnContext, TurnContextOptions } from '../common/turn-context.js'
import type { IgnoredKey } from '../manifest/claude-code-keys.js'
import type { PermissionOutcome } from '../skill-model/permission-request.js'
import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import type { SkillFileManifest, SkillManifestOptions } from '../sources/reading/skill-manifest.js'
import type { DiscoveredSkill, SkillSource } from '../sources/types.js'
import type { SkillIsolationConfig } from '../tiers/isolated/tier.js'
import type {
  ManagerWorkspace,
  SandboxPolicy,
  ScriptToolInterpreter,
  SkillScriptConfig,
} from '../tiers/scripts/tier.js'
import type { CatalogPage, CatalogSearch, SkillCatalog } from './catalog-types.js'
import type { AvailableSkillsOptions, ModelCatalogOptions } from './model-catalog.js'
import type { RenderedAvailableSkills } from './render-available-skills.js'

/**
 * How a loaded skill's body reaches the model: the text itself (`inline`), a
 * handle to read through (`handle`), or `auto`: inline when the body is at
 * most `AUTO_INLINE_MAX_CHARS` characters, a handle otherwise.
 */
export type SkillChannel = 'inline' | 'handle' | 'auto'

/** The channel a body actually took: `auto` resolves to one of these at load. */
export type ResolvedSkillChannel = Exclude<SkillChannel, 'auto'>

/** One file a loaded skill ships: its path relative to the skill folder and its size in bytes. */
export interface SkillFileInfo {
  readonly path: string
  readonly size: number
}

/** One page of a loaded skill's files, in path order, and how many there are in all. */
export interface SkillFilePage {
  readonly files: readonly SkillFileInfo[]
  readonly total: number
}

/** One file of a loaded skill, read from its source. `mimeType` is by extension, else by content. */
export interface SkillFileContent {
  readonly path: string
  readonly size: number
  readonly mimeType: string
  readonly bytes: Uint8Array
}

/** Which of a loaded skill's files `SkillManager.skillFiles` lists. */
export interface SkillFilesQuery {
  /** A folder of the skill (`reference`, `scripts/`), or `.` (the default) for every file. */
  readonly under?: string
  readonly offset?: number
  /** Most files returned. Default and cap: 1,000. */
  readonly limit?: number
}

/** Options for `SkillManager.skillManifest`. */
export interface SkillManifestQuery extends SkillManifestOptions {
  /** The model's view (as `CatalogSearch.forModel`): a `disableModelInvocation` skill has no manifest. */
  readonly forModel?: boolean
}
/** A factory returning an artifact class (a `SpooledArtifact` subclass). */
export type ArtifactKindFactory = () => unknown

/** Escape hatches that weaken containment. Each one in force is listed on `manager.unsafe`. */
export interface SkillManagerUnsafeOptions {
  /** Run isolated tools in an in-process QuickJS guest that cannot be hard-killed. */
  readonly isolatedToolsInProcess?: boolean
  /**
   * Check every script call's derived policy against this policy instead of
   * `scripts.policy` (a wider ceiling). Calls still run under a policy derived
   * per call, with an empty environment (`hostEnvIsolated` stays required).
   */
  readonly scriptsPermissivePolicy?: SandboxPolicy
}

/** Everything `createSkillManager` accepts. Validated at construction (`E_INVALID_SKILLS_CONFIG`). */
export interface SkillManagerConfig {
  readonly sources: readonly SkillSource[]
  readonly gate: ToolGate
  readonly defaultChannel?: SkillChannel
  readonly artifactKinds?: Readonly<Record<string, ArtifactKindFactory>>
  readonly artifactBindings?: Readonly<Record<string, Readonly<Record<string, string>>>>
  readonly scripts?: SkillScriptConfig
  readonly isolation?: SkillIsolationConfig
  /** Rediscover periodically and mark `updateAvailable`; never swaps a loaded version. */
  readonly autoRefresh?: boolean | { readonly intervalMs: number }
  /** Where bodies are spooled. Pass the same store to your turn contexts. Defaults to memory. */
  readonly spool?: SpoolStore
  /** How long `dispose()` waits for in-flight calls. Default 5000 ms. */
  readonly disposeTimeoutMs?: number
  readonly unsafe?: SkillManagerUnsafeOptions
  /**
   * The model's catalog (`availableSkills`, the adapters' catalog blocks,
   * `list_skills`): a budget (`window` and `share`, or `maxTokens`), the
   * skills always described (`pin`) and never listed (`hide`, still loadable
   * by id), and whether rows carry paths (`locations`, default `'none'`).
   */
  readonly catalog?: ModelCatalogOptions
}

/** The result of a load: what was added to the context. */
export interface LoadResult {
  readonly id: string
  /** The ref it was loaded by (`CatalogEntry.ref`): the plain id, or a shadowed copy's qualified ref. */
  readonly ref: string
  readonly version: string
  /** The channel the body took (`auto` has been resolved). */
  readonly channel: ResolvedSkillChannel
  readonly tools: readonly string[]
  /**
   * Tools the skill declares but this host does not offer, each under the
   * name it would have had, with the reason and what would enable it
   * (`detail` is host-side only).
   */
  readonly unavailableTools: readonly UnavailableTool[]
  readonly body?: string
  readonly handle?: { readonly id: string; readonly size: number; readonly text: string }
  /**
   * The first `LOAD_RESULT_FILES` (200) files the skill ships besides
   * SKILL.md, in path order. `skillFiles` (and the model's `read_skill_file`
   * with path `.`) pages through the rest.
   */
  readonly files: readonly SkillFileInfo[]
  /** How many files the skill ships besides SKILL.md. */
  readonly filesTotal: number
  /**
   * Claude Code frontmatter keys the skill uses that skillhost does not
   * honour (`context`, `hooks`, `allowed-tools`…), each with the reason;
   * absent when none. The skill loads regardless.
   */
  readonly ignored?: readonly IgnoredKey[]
  /**
   * Which interpreter each script tool added runs with, as scripts see it:
   * `{ tool, name, program?, version? }`, one entry per declared script and
   * one per interpreter `run_<skill>_script` uses (the fields of `skillhost
   * list --json`'s `interpreters`, from the same `describeInterpreter`).
   * `program` is a sandbox path (`/opt/skillhost/python/3.12.4/bin/python3`,
   * `/usr/bin/python3`), never a host path. Absent when no script tool was added.
   */
  readonly interpreters?: readonly ScriptToolInterpreter[]
  /**
   * Each entry of the skill's permission request (`agents/openai.yaml` or
   * `skillhost.yaml` `permissions`) and whether its scripts got it: granted
   * only within the session policy and with the gate's approval; one beyond
   * the session policy carries `code: 'E_SKILL_SCRIPT_POLICY_WIDENED'`;
   * network is never granted in this version. Absent when it requests nothing.
   */
  readonly permissions?: readonly PermissionOutcome[]
}

/** One skill initialized in a manager: its version, its tools, and the declared tools it lacks. */
export interface LoadedSkillInfo {
  readonly id: string
  /** The ref it was loaded by: the plain id, or a shadowed copy's qualified ref. */
  readonly ref: string
  readonly version: string
  /** The channel its body took at load. */
  readonly channel: ResolvedSkillChannel
  readonly tools: readonly string[]
  readonly unavailableTools: readonly UnavailableTool[]
  /** The `arguments` it was loaded with, if any. */
  readonly arguments?: string
  /** What became of its permission request, as its load result said (`LoadResult.permissions`); absent when it requests nothing. */
  readonly permissions?: readonly PermissionOutcome[]
}

/** How `SkillManager.load` loads. */
export interface LoadOptions {
  /**
   * Load exactly this version (a source's version hash), as a session being
   * restored must. When the catalog holds another version, the sources are
   * rediscovered once; if the version is still not there the load fails with
   * `E_SKILL_VERSION_GONE` (`data.available` names the catalog's version).
   * Default: the catalog's current version.
   */
  readonly version?: string
  /**
   * What the skill was invoked with, as Claude Code's `/skill args`: fills
   * `$ARGUMENTS`, `$ARGUMENTS[N]` and `$N` in the body (`substituteSkillBody`),
   * or is appended as `ARGUMENTS: …` when the body names none. At most
   * `MAX_SKILL_ARGUMENTS_LENGTH` characters (`E_TOOL_INVALID_ARGS`). Kept with
   * the loaded skill, so a refresh and a restored session rebuild the same
   * body. A skill already loaded with other arguments is
   * `E_SKILL_ALREADY_LOADED`. Default: none (placeholders stay as written).
   */
  readonly arguments?: string
}

/** The result of an unload: what was taken away. */
export interface UnloadResult {
  readonly id: string
  readonly toolsRemoved: readonly string[]
}

/**
 * What a refresh did to one loaded skill (`version` is the version still loaded):
 * - `updated`: the new version was prepared and swapped in (`from` → `to`);
 * - `unchanged`: the catalog holds the loaded version;
 * - `update-available`: a newer version is in the catalog, not swapped in
 *   (`refresh`, which never swaps; `refreshAndProject` swaps or says `kept`);
 * - `kept`: the new version failed (discovery skipped it, or it failed to
 *   load), so the loaded version stays; `code` and `message` say why (model-safe);
 * - `removed`: the skill left the catalog (its folder or source entry is
 *   gone) but stays loaded until unloaded.
 */
export type RefreshOutcome =
  | { readonly id: string; readonly outcome: 'updated'; readonly from: string; readonly to: string }
  | { readonly id: string; readonly outcome: 'unchanged'; readonly version: string }
  | {
      readonly id: string
      readonly outcome: 'update-available'
      readonly version: string
      readonly available: string
    }
  | {
      readonly id: string
      readonly outcome: 'kept'
      readonly version: string
      readonly code: string
      readonly message: string
    }
  | { readonly id: string; readonly outcome: 'removed'; readonly version: string }

/** The result of a refresh. `swapped` and `failed` are only filled by `refreshAndProject`. */
export interface RefreshResult {
  readonly refreshed: readonly string[]
  readonly updatesAvailable: readonly string[]
  readonly swapped: readonly { readonly id: string; readonly from: string; readonly to: string }[]
  readonly failed: readonly {
    readonly id: string
    readonly code: string
    readonly message: string
  }[]
  /** One outcome per loaded skill the refresh covered (all, or only the `id` asked for), in load order. */
  readonly outcomes: readonly RefreshOutcome[]
}

/** Something changed that a client's tool list or catalog view depends on. */
export interface SkillManagerEvent {
  readonly kind: 'loaded' | 'unloaded' | 'refreshed' | 'swapped'
  readonly id?: string
  readonly ctx?: TurnContext
}

/** Middleware that projects loaded skills onto each fresh turn and strips them after it. */
export interface SkillMiddleware {
  turnInput<T>(ctx: TurnContext, next: () => T | Promise<T>): Promise<T>
  turnOutput<T>(ctx: TurnContext, next: () => T | Promise<T>): Promise<T>
}

/**
 * The plugin lifecycle manager for one conversation. Mutations (load, unload,
 * refresh, dispose) are serialized; reads (`catalog`, `loaded`, `projected`)
 * are synchronous.
 */
export interface SkillManager extends AsyncDisposable {
  /** Catalog rows (winners then shadowed), skipped skills and source errors. */
  catalog(): SkillCatalog
  /**
   * Catalog rows (winners, then shadowed) whose id, name or description
   * contains `query` (case-insensitive), paged. Cheap on large catalogs: rows
   * are built only for the page returned.
   */
  search(options?: CatalogSearch): CatalogPage
  /**
   * The `<available_skills>` block for the model's system prompt, within the
   * `catalog` budget (or the one given here): the skills the model may load,
   * pinned first, then by use in this session, then by name, overflowing in
   * steps it can see (`renderAvailableSkills`). Its bytes change only when
   * those skills change, never on load or unload, so prompt caches hold.
   */
  availableSkills(options?: AvailableSkillsOptions): RenderedAvailableSkills
  /** Ids initialized at manager level, in load order. */
  loaded(): readonly string[]
  /** The skills `loaded()` names, each with its tools and the declared tools this host does not offer. */
  loadedSkills(): readonly LoadedSkillInfo[]
  /** Ids projected into `ctx`: what is callable there. */
  projected(ctx: TurnContext): readonly string[]
  /**
   * Loads the skill `ref` names (the catalog's version, or `options.version`)
   * and projects it into `ctx`: a plain id loads its winner, a qualified ref
   * (`CatalogEntry.ref`) that copy. One copy of an id is loaded at a time
   * (tool names derive from the id): another is `E_SKILL_ALREADY_LOADED`.
   * An unknown or malformed ref is `E_SKILL_NOT_FOUND`.
   */
  load(ref: string, ctx: TurnContext, options?: LoadOptions): Promise<LoadResult>
  /**
   * A page of the files a loaded skill ships (SKILL.md aside), in path order.
   * `E_SKILL_NOT_LOADED` unless `id` is loaded; `E_SKILL_NOT_FOUND` for an
   * `under` that names no folder of the skill; `E_SKILL_SOURCE_PATH_REJECTED`
   * for one that could leave it.
   */
  skillFiles(id: string, query?: SkillFilesQuery): SkillFilePage
  /**
   * One file of a loaded skill, read from its source (checked against the
   * source's look at the skill when it was loaded). `E_SKILL_NOT_LOADED` once
   * the skill is unloaded; `E_SKILL_SOURCE_PATH_REJECTED` for `..`, absolute
   * and other escaping paths; `E_SKILL_NOT_FOUND` for a file it does not ship
   * (a symlink leading out of the skill is never shipped).
   */
  readSkillFile(id: string, path: string): Promise<SkillFileContent>
  /**
   * The catalog's winning skill `id` at its catalog version, as its source
   * publishes it (`SkillSource.manifest`): every file with its size and
   * `sha256:` digest, the frontmatter, a digest-checked reader. Loaded or not.
   * Undefined when that source publishes no manifests, or (`forModel`) for a
   * skill kept out of model-facing catalogs; `E_SKILL_NOT_FOUND` for an id
   * the catalog does not hold; `E_SKILL_SOURCE_TOO_LARGE` beyond `bounds`.
   */
  skillManifest(id: string, options?: SkillManifestQuery): Promise<SkillFileManifest | undefined>
  /** Unloads the skill loaded under `ref`: its id (whichever copy is loaded) or the ref it was loaded by. */
  unload(ref: string, ctx: TurnContext): Promise<UnloadResult>
  /** Rediscovers; catalog only, never swaps. */
  refresh(id?: string): Promise<RefreshResult>
  /** Rediscovers, prepares each updated loaded skill fully, then swaps it into `ctx`. */
  refreshAndProject(ctx: TurnContext, id?: string): Promise<RefreshResult>
  readonly middleware: SkillMiddleware
  /** Unsafe controls in force, as human-readable names. Empty in a safe configuration. */
  readonly unsafe: readonly string[]
  readonly gate: ToolGate
  readonly spool: SpoolStore
  /**
   * The conversation's workspace (mounted at `/work` for every script call),
   * when scripts are enabled: put the user's inputs in, take outputs out.
   */
  readonly workspace?: ManagerWorkspace | undefined
  /** A turn context sharing this manager's spool, so handles and results stay readable. */
  createTurnContext(options?: Omit<TurnContextOptions, 'spool'>): TurnContext
  /** Subscribes to lifecycle events; returns the unsubscribe function. */
  onDidChange(listener: (event: SkillManagerEvent) => void): () => void
  /** Retires every skill, waits (bounded) for in-flight calls, and tears everything down. */
  dispose(): Promise<void>
}

export type {
  CatalogCounts,
  CatalogEntry,
  CatalogPage,
  CatalogSearch,
  SkillCatalog,
  SourceError,
} from './catalog-types.js'
export type { DiscoveredSkill }
