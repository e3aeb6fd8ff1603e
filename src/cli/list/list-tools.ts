import { SkillHostError } from '../../common/index.js'
import { FileSystemSkillSource, type UnavailableTool } from '../../index.js'
import type { SkillDescriptor, SkillPermissionRequest } from '../../sources/index.js'
import {
  describeInterpreter,
  previewScriptTools,
  type RunsWith,
} from '../../tiers/scripts/internal.js'
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
  /** Each declared script tool → the interpreter it will run with (`describeInterpreter`). */
  readonly interpreters: Readonly<Record<string, RunsWith>>
  /** The interpreters `run_<skill>_script` would run the skill's undeclared scripts with. */
  readonly undeclaredInterpreters: readonly RunsWith[]
  /**
   * The skill's permission request as written (`agents/openai.yaml` or the
   * sidecar's `permissions`): what a load would put to serve's policy and
   * gate, never what it would grant. Absent when it requests nothing.
   */
  readonly permissions?: SkillPermissionRequest
}

const NOTHING: ListedTools = {
  module: [],
  isolated: [],
  scripts: [],
  undeclared: [],
  unavailable: [],
  interpreters: {},
  undeclaredInterpreters: [],
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
      ...(seen.permissions && { permissions: seen.permissions }),
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
 * applies: the source's own report for a module it does not import, and
 * tier 3's `previewScriptTools` for declared scripts and the
 * undeclared-script tool (its file list read only when that tool could be
 * offered). Reading the descriptor never imports a module, and no script
 * runs. A descriptor that cannot be read yields nothing here: discovery
 * already reported why.
 */
export async function listTools(row: CatalogRow, shape: ListServeShape): Promise<ListedTools> {
  if (row.status !== 'active') return NOTHING
  const declared = await declarationsOf(row)
  if (!declared) return NOTHING
  const { descriptor } = declared
  const modules = (descriptor.unavailableTools ?? []).filter(
    (t) => t.reason === 'module-imports-off',
  )
  const files = shape.scripts
    ? (declared.files ??
      (row.skill && row.source?.list ? await row.source.list(row.skill) : undefined))
    : undefined
  // Allowed, run_<skill>_script is offered; denied, a skill that ships scripts says why not.
  const offer = shape.undeclaredScripts ? 'undeclared' : 'denied'
  const scripts = await previewScriptTools(descriptor, {
    enabled: shape.scripts,
    interpreters: shape.interpreters,
    ...(files === undefined ? {} : { [offer]: { dir: row.path, files } }),
  })
  return {
    module: shape.importModules ? modules.map((t) => t.name) : [],
    isolated: (descriptor.isolatedTools ?? []).map((t) => String(t.name)),
    scripts: scripts.declared,
    undeclared: scripts.undeclared,
    unavailable: [...(shape.importModules ? [] : modules), ...scripts.unavailable],
    interpreters: Object.fromEntries(
      Object.entries(scripts.runsWith).map(([tool, name]) => [
        tool,
        describeInterpreter(name, shape.interpreters),
      ]),
    ),
    undeclaredInterpreters: scripts.undeclaredRunsWith.map((name) =>
      describeInterpreter(name, shape.interpreters),
    ),
    ...(descriptor.permissions && { permissions: descriptor.permissions }),
  }
}
