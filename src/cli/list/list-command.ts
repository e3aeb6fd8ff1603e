import { relative } from 'node:path'
import { escapeLine } from '../../common/index.js'
import { scriptInterpreters } from '../../tiers/scripts/index.js'
import type { CliCommand, CliIo } from '../shared/cli-command.js'
import {
  cliRoots,
  DEFAULT_ROOTS_HELP,
  ROOT_FLAGS,
  requireRoots,
  rootFlagsHelp,
} from '../shared/cli-roots.js'
import { discoveryProgress } from '../shared/discovery-progress.js'
import { LOCKED_HELP, lockedFlag } from '../shared/locked-flag.js'
import { isNotSearched, notSearchedLines } from '../shared/not-searched.js'
import { OVERLAYS_HELP, overlayDirs } from '../shared/overlay-dirs.js'
import { parseArgs } from '../shared/parse-args.js'
import { type CliCatalog, resolveCatalog } from '../shared/resolve-catalog.js'
import { parseSandboxFlags } from '../shared/sandbox-flags.js'
import { cutStartToWidth, cutToWidth, padToWidth, textWidth } from '../shared/text-width.js'
import { type ListedTools, type ListServeShape, listTools } from './list-tools.js'
import { mapLimit } from './map-limit.js'

const TOOLS_LEGEND =
  'TOOLS: m module, i isolated, s declared scripts, u run_<skill>_script (undeclared scripts); names in --json'

const HELP = `Usage: skillhost list [--strict] [--json] [--overlays DIR] [--locked FILE] [--root DIR] [--import-modules]
                     [--no-scripts] [--no-undeclared-scripts] [--interpreter NAME=PATH ...]
                     [root...]

List the skills the roots serve, in catalog order. An earlier root wins an
id collision; later copies are shown as shadowed. Skills that were skipped
(invalid, unreadable, too large), folders not searched (below the depth, or
inside another skill) and roots that failed are listed after the table.
Symlinked skill folders are followed to their target.

The TOOLS column counts the tools skillhost serve with the same flags would
offer, by tier: m module (named by its module file: list never imports
code), i isolated, s declared scripts, u run_<skill>_script (the skill ships
a file an allowed or refused interpreter would run, and undeclared scripts
are allowed). Tools a skill declares that serve would not offer are listed
after the table, under the name they would have had, with the reason and
what would enable them. Nothing is imported or run.

On a terminal, descriptions are cut to fit its width; otherwise to 60
columns. --json has them whole. On a terminal, a walk that takes longer
than a second shows its progress on stderr.

${DEFAULT_ROOTS_HELP}

Options:
  --strict   apply the agentskills.io rules strictly
  --json     print { roots, skills, problems, sourceErrors } as JSON; each
             active skill carries tools: { module, isolated, scripts,
             undeclared } (tool names) and unavailableTools: [{ name, reason,
             enable, detail? }]
  ${OVERLAYS_HELP}
  ${LOCKED_HELP}
${rootFlagsHelp(13)}
  --import-modules  answer for serve --import-modules (module tools offered)
  --no-scripts      answer for serve --no-scripts (every script unavailable)
  --no-undeclared-scripts
             answer for serve --no-undeclared-scripts (no run_<skill>_script)
  --interpreter NAME=PATH
             an interpreter serve would allow besides the defaults (repeatable)
  -h, --help show this help

Exit status: 0; 1 when a root given does not exist or there is no root at
all; 2 on a usage error. Skipped skills do not change it; use skillhost
validate to gate on validity.`

/** A host path for display, relative to the working directory, on one line. */
const shown = (path: string): string => escapeLine(relative(process.cwd(), path) || '.')

/** Description width when stdout is not a terminal (a pipe, a file): as before, 60 columns. */
export const LIST_DESCRIPTION_WIDTH = 60
/** The least a description is cut to, however narrow the terminal. */
const MIN_DESCRIPTION_WIDTH = 12
/** The least a path is cut to (from its start: the skill folder's name stays). */
const MIN_PATH_WIDTH = 16
const PATH_COLUMN = 2

/**
 * The TOOLS cell: how many tools each tier would offer — `m` module, `i`
 * isolated, `s` declared scripts, `u` the undeclared-script tool — or `-`.
 */
function toolsCell(t: ListedTools): string {
  const parts = [
    t.module.length > 0 ? `${t.module.length}m` : '',
    t.isolated.length > 0 ? `${t.isolated.length}i` : '',
    t.scripts.length > 0 ? `${t.scripts.length}s` : '',
    t.undeclared.length > 0 ? 'u' : '',
  ].filter((p) => p !== '')
  return parts.length > 0 ? parts.join(' ') : '-'
}

/**
 * The table in display widths (`textWidth`; cells are already escaped). The
 * last column, the description, is cut to `LIST_DESCRIPTION_WIDTH` when
 * stdout is not a terminal; on a terminal of `columns`, it is cut to fit,
 * down to `MIN_DESCRIPTION_WIDTH`, and then the path column is cut from its
 * start, down to `MIN_PATH_WIDTH`. A terminal narrower than that gets longer
 * lines.
 */
function table(rows: readonly string[][], columns: number | undefined): string {
  const last = rows[0]!.length - 1
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => textWidth(r[col]!))))
  if (columns === undefined) widths[last] = Math.min(widths[last]!, LIST_DESCRIPTION_WIDTH)
  else {
    const over = (): number => widths.reduce((a, w) => a + w, 0) + 2 * last - columns
    widths[last] = Math.max(MIN_DESCRIPTION_WIDTH, widths[last]! - Math.max(0, over()))
    const path = Math.max(MIN_PATH_WIDTH, widths[PATH_COLUMN]! - Math.max(0, over()))
    widths[PATH_COLUMN] = Math.min(widths[PATH_COLUMN]!, path)
  }
  const fit = (cell: string, col: number): string =>
    col === last
      ? cutToWidth(cell, widths[col]!)
      : padToWidth(col === PATH_COLUMN ? cutStartToWidth(cell, widths[col]!) : cell, widths[col]!)
  return rows.map((r) => r.map(fit).join('  ').trimEnd()).join('\n')
}

function print(catalog: CliCatalog, tools: readonly ListedTools[], io: CliIo): void {
  const rows = catalog.rows.map((r, i) => [
    escapeLine(r.id),
    r.status === 'active'
      ? `${r.pin?.state === 'changed-since-pinned' ? 'changed-since-pinned' : 'active'}${r.warnings.length > 0 ? ` (${r.warnings.length} warnings)` : ''}`
      : 'shadowed',
    shown(r.path),
    r.status === 'active' ? toolsCell(tools[i]!) : '',
    r.status === 'active'
      ? escapeLine(r.description.replace(/\s+/g, ' '))
      : `by ${shown(r.shadowedBy ?? '?')}`,
  ])
  if (rows.length > 0) {
    io.stdout(`${table([['ID', 'STATUS', 'PATH', 'TOOLS', 'DESCRIPTION'], ...rows], io.columns)}\n`)
    io.stdout(`${TOOLS_LEGEND}\n`)
  }
  const active = catalog.rows.filter((r) => r.status === 'active').length
  io.stdout(`${active} skills, ${catalog.rows.length - active} shadowed\n`)
  catalog.rows.forEach((r, i) => {
    for (const w of r.warnings) io.stdout(`warning ${escapeLine(r.id)}: ${escapeLine(w)}\n`)
    if (r.pin?.state === 'changed-since-pinned')
      io.stdout(
        `changed ${escapeLine(r.id)}: pinned ${r.pin.pinnedDigest}, now ${r.pin.digest}; it will not load (skillhost lock pins it again)\n`,
      )
    for (const t of tools[i]?.unavailable ?? []) {
      const why = t.detail === undefined ? '' : ` (${escapeLine(t.detail)})`
      io.stdout(
        `unavailable ${escapeLine(r.id)}: ${escapeLine(t.name)}: ${t.reason}${why}; ${t.enable}\n`,
      )
    }
  })
  const skipped = catalog.problems.filter((p) => p.severity === 'error')
  if (skipped.length > 0) io.stdout(`\nSkipped (${skipped.length}):\n`)
  for (const p of skipped)
    io.stdout(`  ${shown(p.hostPath ?? p.location)}: ${p.code}: ${escapeLine(p.message)}\n`)
  const warnings = catalog.problems.filter((x) => x.severity === 'warning' && x.id === undefined)
  for (const p of warnings.filter((x) => !isNotSearched(x))) {
    io.stdout(`warning ${shown(p.hostPath ?? p.location)}: ${escapeLine(p.message)}\n`)
  }
  for (const line of notSearchedLines(warnings, shown)) io.stdout(`${line}\n`)
  for (const e of catalog.sourceErrors)
    io.stdout(`source error ${shown(e.root)}: ${escapeLine(e.message)}\n`)
}

/** `skillhost list`: the catalog of the given roots, with shadowed and skipped skills. */
export const listCommand: CliCommand = {
  name: 'list',
  summary: 'list discovered skills, shadowed copies and skipped folders',
  help: HELP,
  json: true,
  async run(argv, io) {
    const args = parseArgs(argv, {
      booleans: [
        'json',
        'strict',
        'import-modules',
        'no-scripts',
        'no-undeclared-scripts',
        ...ROOT_FLAGS.booleans,
      ],
      strings: ['locked', ...ROOT_FLAGS.strings],
      lists: ['overlays', 'interpreter', ...ROOT_FLAGS.lists],
    })
    if (args.booleans.help) {
      io.stdout(`${HELP}\n`)
      return 0
    }
    const found = cliRoots(args)
    requireRoots(found)
    const lock = await lockedFlag(args.strings.locked)
    const progress = discoveryProgress(io, 'skillhost list')
    const catalog = await resolveCatalog(found.roots, {
      strict: args.booleans.strict === true,
      ...(lock && { lock }),
      overlays: overlayDirs(args.lists.overlays),
      ...(found.maxDepth !== undefined && { maxDepth: found.maxDepth }),
      progress,
    })
    progress.done()
    const shape: ListServeShape = {
      importModules: args.booleans['import-modules'] === true,
      scripts: args.booleans['no-scripts'] !== true,
      undeclaredScripts: args.booleans['no-undeclared-scripts'] !== true,
      interpreters: scriptInterpreters(parseSandboxFlags(args.lists).interpreters),
    }
    // A bounded number at a time: a row without discovery's memory rescans its skill.
    const tools: ListedTools[] = await mapLimit(catalog.rows, 16, (row) => listTools(row, shape))
    if (args.booleans.json) {
      const skills = catalog.rows.map(({ skill: _skill, source: _source, ...row }, i) => {
        if (row.status !== 'active') return row
        const { unavailable, ...byTier } = tools[i]!
        return { ...row, tools: byTier, unavailableTools: unavailable }
      })
      const { problems, sourceErrors } = catalog
      io.stdout(
        `${JSON.stringify({ roots: found.roots, skills, problems, sourceErrors }, null, 2)}\n`,
      )
    } else {
      if (found.defaults.length > 0) io.stdout(`roots: ${found.roots.map(shown).join(', ')}\n`)
      print(catalog, tools, io)
    }
    return 0
  },
}
