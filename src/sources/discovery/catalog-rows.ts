import { type UnavailableTool, unavailableTool } from '../../skill-model/unavailable-tool.js'
import type { DiscoveredSkill } from '../types.js'
import type { FsSkillEntry } from './load-fs-skill.js'

/**
 * Whether a skill's `module:` may be imported: `true`, `false`/undefined, or
 * a predicate per skill (see `FileSystemSkillSourceOptions.importModules`).
 */
export type ImportModulesPolicy = boolean | ((skill: DiscoveredSkill) => boolean) | undefined

/**
 * The catalog row (`DiscoveredSkill`) of each loaded entry, and the
 * `importModules` policy that decides whether its module is served. The same
 * entry at the same id and location gets the same row object, so a replayed
 * or unchanged discovery allocates nothing.
 */
export class CatalogRows {
  readonly #importModules: ImportModulesPolicy
  readonly #rows = new WeakMap<FsSkillEntry, DiscoveredSkill>()

  constructor(importModules: ImportModulesPolicy) {
    this.#importModules = importModules
  }

  /**
   * The catalog row of an entry, found at copy key `copy` (see
   * `fileSystemCopyKey`); the same object for the same entry, so a replay
   * allocates nothing.
   */
  row(id: string, entry: FsSkillEntry, hostPath: string, copy?: string): DiscoveredSkill {
    let skill = this.#rows.get(entry)
    if (
      skill === undefined ||
      skill.id !== id ||
      skill.copy !== copy ||
      skill.location !== `${hostPath}/SKILL.md`
    ) {
      skill = this.#toDiscovered(id, entry, hostPath, copy)
      this.#rows.set(entry, skill)
    }
    return skill
  }

  /** The module a skill declares that this source will not import (`importModules`), named by its path. */
  notImported(id: string, entry: FsSkillEntry): UnavailableTool[] {
    const module = entry.sidecar?.module
    if (module === undefined) return []
    // The row discovery made (with its copy key), or one made now for the predicate.
    if (this.#mayImport(this.#rows.get(entry) ?? this.row(id, entry, entry.dir))) return []
    // The module's tool names are known only once imported: it is named by its path.
    return [unavailableTool(`module:${module}`, 'module-imports-off')]
  }

  #toDiscovered(
    id: string,
    entry: FsSkillEntry,
    hostPath: string,
    copy: string | undefined,
  ): DiscoveredSkill {
    const m = entry.manifest
    // Built field by field (same key order as before): spreads of
    // conditional objects cost a temporary object each, per skill.
    const base: { -readonly [K in keyof DiscoveredSkill]: DiscoveredSkill[K] } = {
      id,
      version: entry.version,
      name: m.name,
      description: m.description,
    }
    if (copy !== undefined) base.copy = copy
    if (m.license !== undefined) base.license = m.license
    if (m.compatibility !== undefined) base.compatibility = m.compatibility
    if (m.metadata !== undefined) base.metadata = m.metadata
    if (m.allowedTools !== undefined) base.allowedTools = m.allowedTools
    // Not an agentskills.io key: taken from the manifest's `extra` (strict mode rejects it, as skills-ref does).
    if (m.disableModelInvocation) base.disableModelInvocation = true
    base.location = `${hostPath}/SKILL.md`
    const skipped = Boolean(entry.sidecar?.module) && !this.#mayImport(base)
    if (entry.warnings.length === 0 && !skipped) return base
    const warnings = [...entry.warnings]
    if (skipped) {
      warnings.push(
        `module tools in ${entry.sidecar?.module} were not imported: importModules is off for this skill`,
      )
    }
    return { ...base, warnings }
  }

  #mayImport(skill: DiscoveredSkill): boolean {
    const allow = this.#importModules
    return allow === true || (typeof allow === 'function' && allow(skill) === true)
  }
}
