import { SkillHostError } from '../common/errors.js'
import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import { partitionScripts, scriptsOffTools } from '../tiers/scripts/script-availability.js'
import type { CatalogRow } from './resolve-catalog.js'

/** How the `serve` that `list` answers for would run: the flags both commands share. */
export interface ListServeShape {
  readonly importModules: boolean
  readonly scripts: boolean
  readonly interpreters: Readonly<Record<string, readonly string[]>>
}

/**
 * The tools an active row declares that `skillhost serve` with `shape` would
 * not offer, by the rules a load applies (the source's own report for a
 * module it does not import, `partitionScripts` or `scriptsOffTools` for
 * scripts). Reading the descriptor never imports a module. A descriptor that
 * cannot be read yields nothing here: discovery already reported why.
 */
export async function listUnavailableTools(
  row: CatalogRow,
  shape: ListServeShape,
): Promise<UnavailableTool[]> {
  if (row.status !== 'active' || !row.skill || !row.source) return []
  let descriptor: Awaited<ReturnType<NonNullable<CatalogRow['source']>['descriptor']>>
  try {
    descriptor = await row.source.descriptor(row.skill)
  } catch (err) {
    if (SkillHostError.isInstance(err)) return []
    throw err
  }
  const modules = shape.importModules
    ? []
    : (descriptor.unavailableTools ?? []).filter((t) => t.reason === 'module-imports-off')
  const scripts = shape.scripts
    ? partitionScripts(descriptor, shape.interpreters).unavailable
    : scriptsOffTools(descriptor)
  return [...modules, ...scripts]
}
