import { join } from 'node:path'
import { SkillHostError } from '../../common/errors.js'
import type { UnavailableTool } from '../../skill-model/unavailable-tool.js'
import { FileSystemSkillSource } from '../../sources/file-system-skill-source.js'
import type { SkillDescriptor } from '../../sources/types.js'
import { readScriptHead } from '../../tiers/scripts/policy/undeclared-interpreter.js'
import { partitionScripts, scriptsOffTools } from '../../tiers/scripts/tool/script-availability.js'
import { undeclaredToolName } from '../../tiers/scripts/tool/script-forge.js'
import { scriptToolName } from '../../tiers/scripts/tool/script-tool-name.js'
import { shipsUndeclaredScripts } from '../../tiers/scripts/tool/undeclared-script-tool.js'
import type { CatalogRow } from '../shared/resolve-catalog.js'

/** How the `serve` that `list` answers for would run: the flags both commands share. */
export interface ListServeShape {
  readonly importModules: boolean
  readonly scripts: boolean
  /** `run_<skill>_script` is offered (serve's default; off with `--no-undeclared-scripts`). */
  readonly undeclaredScripts: boolean
  readonly interpreters: Readonly<Record<string, readonly string[]>>
}

/**
 * The tools `skillhost serve` with a shape would offer for one skill, by
 * tier, and the ones it declares that would not be offered. Module tools are
 * named by their module (`module:tools.mjs`): `list` never imports code, so
 * the names the module exports are not known.
 */
export interface ListedTools {
  /** The skill's module, when serve would import it (`--import-modules`). */
  readonly module: readonly string[]
  /** Isolated (QuickJS) tools: always on in serve. */
  readonly isolated: readonly string[]
  /** Declared scripts that pass the rules a load applies: `run_<skill>_<script>`. */
  readonly scripts: readonly string[]
  /** `run_<skill>_script`, when undeclared scripts are allowed and the skill ships a file one runs. */
  readonly undeclared: readonly string[]
  /** Declared tools serve would not offer, with the reason and what enables them. */
  readonly unavailable: readonly UnavailableTool[]
}

const NOTHING: ListedTools = {
  module: [],
  isolated: [],
  scripts: [],
  undeclared: [],
  unavailable: [],
}

/** Whether the skill gets `run_<skill>_script`: the forge's rule over the files it ships. */
async function undeclaredOffered(
  row: CatalogRow,
  shape: ListServeShape,
  files: readonly string[] | undefined,
): Promise<boolean> {
  if (!shape.scripts || !shape.undeclaredScripts || !row.skill) return false
  const paths = files ?? (row.source?.list ? await row.source.list(row.skill) : undefined)
  if (!paths) return false
  return shipsUndeclaredScripts(paths, (p) => readScriptHead(join(row.path, p)), shape.interpreters)
}

/**
 * What `listTools` needs of a skill: from discovery's memory when the source
 * keeps it (`FileSystemSkillSource.declared`, no filesystem call), else from
 * its descriptor (a rescan). Undefined when neither can be had.
 */
async function declarationsOf(
  row: CatalogRow,
): Promise<{ descriptor: SkillDescriptor; files?: readonly string[] } | undefined> {
  const { skill, source } = row
  if (!skill || !source) return undefined
  const seen = source instanceof FileSystemSkillSource ? source.declared(skill) : undefined
  if (seen) {
    // Only the names matter here: no isolated tool's source is read.
    const descriptor: SkillDescriptor = {
      ...skill,
      scripts: seen.scripts,
      isolatedTools: seen.isolatedTools.map((name) => ({ name, description: '', source: '' })),
      unavailableTools: seen.unavailableTools,
    }
    return { descriptor, files: seen.files }
  }
  try {
    return { descriptor: await source.descriptor(skill) }
  } catch (err) {
    if (SkillHostError.isInstance(err)) return undefined
    throw err
  }
}

/**
 * What one active row's skill would offer under `shape`, by the rules a load
 * applies: the source's own report for a module it does not import,
 * `partitionScripts` or `scriptsOffTools` for declared scripts, the forge's
 * rule for the undeclared-script tool, tool names by `scriptToolName` and
 * `undeclaredToolName`.
 * Reading the descriptor never imports a module, and no script runs. A
 * descriptor that cannot be read yields nothing here: discovery already
 * reported why.
 */
export async function listTools(row: CatalogRow, shape: ListServeShape): Promise<ListedTools> {
  if (row.status !== 'active') return NOTHING
  const declared = await declarationsOf(row)
  if (!declared) return NOTHING
  const { descriptor, files } = declared
  const modules = (descriptor.unavailableTools ?? []).filter(
    (t) => t.reason === 'module-imports-off',
  )
  const { valid, unavailable } = shape.scripts
    ? partitionScripts(descriptor, shape.interpreters)
    : { valid: [], unavailable: scriptsOffTools(descriptor) }
  return {
    module: shape.importModules ? modules.map((t) => t.name) : [],
    isolated: (descriptor.isolatedTools ?? []).map((t) => String(t.name)),
    scripts: valid.map((s) => scriptToolName(descriptor.id, s.name)),
    undeclared: (await undeclaredOffered(row, shape, files))
      ? [undeclaredToolName(descriptor.id)]
      : [],
    unavailable: [...(shape.importModules ? [] : modules), ...unavailable],
  }
}
