import { SkillHostError } from '../common/errors.js'
import type { ToolGate } from '../common/gate.js'
import type { SpoolStore } from '../common/spool-store.js'
import type { TurnContext } from '../common/turn-context.js'
import type { SkillRef } from '../sources/types.js'
import { resolveArtifactClass } from './artifact-binding.js'
import type { CatalogSkill } from './catalog.js'
import type { LiveCatalog } from './live-catalog.js'
import type { LoadedSkills } from './loaded-skills.js'
import { type PrepareDeps, prepareSkill } from './prepare-skill.js'
import type { SkillRecord } from './skill-record.js'
import type { TierWiring } from './tier-wiring.js'
import type { SkillManagerConfig } from './types.js'

/** The ref a source serves a catalog row under: its id, version and (for a copy) copy key. */
function sourceRef({ skill }: CatalogSkill): SkillRef {
  return {
    id: skill.id,
    version: skill.version,
    ...(skill.copy === undefined ? {} : { copy: skill.copy }),
  }
}

/** What a loader needs from its manager. */
export interface SkillLoaderDeps {
  readonly config: SkillManagerConfig
  readonly gate: ToolGate
  readonly spool: SpoolStore
  readonly catalog: LiveCatalog
  readonly loaded: LoadedSkills
  readonly wiring: TierWiring
  /** The manager's lifetime: aborting it cancels every prepare in flight. */
  readonly lifetime: AbortSignal
}

/**
 * Decides which version of a skill to prepare and prepares it against the
 * manager's tiers, reserved names and current claims. It never registers a
 * record or touches a turn: the manager does that with what it returns, on
 * its mutation queue.
 */
export class SkillLoader {
  readonly #deps: SkillLoaderDeps

  constructor(deps: SkillLoaderDeps) {
    this.#deps = deps
  }

  /**
   * Prepares the catalog's version of the row `ref` names (a plain id: its
   * winner; a qualified ref: that copy). When the source says that version
   * is gone (the skill changed since the last discovery), rediscovers once
   * and tries the new version, so a model never has to refresh by hand to load.
   */
  async current(ref: string, ctx: TurnContext, args?: string): Promise<SkillRecord> {
    const { catalog } = this.#deps
    const { row, ref: kept } = catalog.resolve(ref)
    try {
      return await prepareSkill(sourceRef(row), kept, row.source, this.#prepare(ctx, args))
    } catch (err) {
      if (!SkillHostError.is(err, 'E_SKILL_NOT_FOUND')) throw err
      await catalog.rediscover()
      const fresh = catalog.resolve(ref)
      if (fresh.row.skill.version === row.skill.version && fresh.row.source === row.source)
        throw err
      return prepareSkill(
        sourceRef(fresh.row),
        fresh.ref,
        fresh.row.source,
        this.#prepare(ctx, args),
      )
    }
  }

  /**
   * Prepares the row `ref` names at exactly `version`. A catalog holding
   * another version is rediscovered once (another process may have changed
   * the skill since this manager last looked); still another version, or no
   * skill, is `E_SKILL_VERSION_GONE`.
   */
  async pinned(
    ref: string,
    version: string,
    ctx: TurnContext,
    args?: string,
  ): Promise<SkillRecord> {
    const { catalog } = this.#deps
    if (catalog.find(ref)?.skill.version !== version) await catalog.rediscover()
    const row = catalog.find(ref)
    const id = row?.skill.id ?? ref
    const gone = (available: string | undefined): SkillHostError =>
      new SkillHostError(
        'E_SKILL_VERSION_GONE',
        `Skill '${String(id).slice(0, 80)}' was loaded at version ${String(version).slice(0, 80)}, which its source no longer holds (${available === undefined ? 'the skill is not in the catalog' : `it now has ${available}`}). Start a new session and load it again.`,
        {
          data: {
            skill: String(id).slice(0, 80),
            version: String(version).slice(0, 80),
            ...(available === undefined ? {} : { available }),
          },
        },
      )
    if (!row || row.skill.version !== version) throw gone(row?.skill.version)
    const { ref: kept } = catalog.resolve(ref)
    try {
      return await prepareSkill(sourceRef(row), kept, row.source, this.#prepare(ctx, args))
    } catch (err) {
      if (!SkillHostError.is(err, 'E_SKILL_NOT_FOUND')) throw err
      // The source changed since this manager's last discovery: say what it holds now.
      await catalog.rediscover()
      throw gone(catalog.find(ref)?.skill.version)
    }
  }

  /**
   * Prepares the catalog's version of the row `old` was loaded from (by its
   * ref) to replace `old`, whose tool names the new version may take over;
   * undefined when the catalog no longer has it. The new version keeps
   * `old`'s arguments.
   */
  async replacement(old: SkillRecord, ctx: TurnContext): Promise<SkillRecord | undefined> {
    const row = this.#deps.catalog.find(old.ref)
    if (!row) return undefined
    return prepareSkill(sourceRef(row), old.ref, row.source, {
      ...this.#prepare(ctx, old.arguments),
      replacing: new Set(old.tools.map((t) => t.name)),
    })
  }

  #prepare(ctx: TurnContext, args: string | undefined): PrepareDeps {
    const { config, gate, spool, loaded, wiring, lifetime } = this.#deps
    return {
      gate,
      spool,
      defaultChannel: config.defaultChannel ?? 'handle',
      reserved: wiring.reserved,
      claimed: loaded.claims,
      hostTools: ctx.tools,
      artifactClassFor: (skill, tool) => resolveArtifactClass(config, skill, tool),
      tiers: wiring.tiers,
      signal: AbortSignal.any([ctx.abortSignal, lifetime]),
      skillDir: wiring.skillDir,
      ctx,
      ...(args === undefined ? {} : { arguments: args }),
    }
  }
}
