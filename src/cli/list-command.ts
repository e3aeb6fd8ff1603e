import { relative } from 'node:path'
import { capDescription } from '../manifest/cap-description.js'
import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import { scriptInterpreters } from '../tiers/scripts/script-interpreters.js'
import type { CliCommand, CliIo } from './cli-command.js'
import {
  cliRoots,
  DEFAULT_ROOTS_HELP,
  ROOT_FLAGS,
  requireRoots,
  rootFlagsHelp,
} from './cli-roots.js'
import { discoveryProgress } from './discovery-progress.js'
import { escapeLine } from './escape-controls.js'
import { listUnavailableTools } from './list-unavailable.js'
import { isNotSearched, notSearchedLines } from './not-searched.js'
import { OVERLAYS_HELP, overlayDirs } from './overlay-dirs.js'
import { parseArgs } from './parse-args.js'
import { type CliCatalog, resolveCatalog } from './resolve-catalog.js'
import { parseSandboxFlags } from './sandbox-flags.js'

const HELP = `Usage: skillhost list [--strict] [--json] [--overlays DIR] [--root DIR] [--import-modules]
                     [--no-scripts] [--interpreter NAME=PATH ...] [root...]

List the skills the roots serve, in catalog order. An earlier root wins an
id collision; later copies are shown as shadowed. Skills that were skipped
(invalid, unreadable, too large), folders not searched (below the depth, or
inside another skill) and roots that failed are listed after the table.
Symlinked skill folders are followed to their target. Tools a skill declares
that skillhost serve with the same flags would not offer are listed too,
under the name they would have had, with the reason and what would enable
them (nothing is imported or run).

${DEFAULT_ROOTS_HELP}

Options:
  --strict   apply the agentskills.io rules strictly
  --json     print { roots, skills, problems, sourceErrors } as JSON; each skill
             carries unavailableTools: [{ name, reason, enable, detail? }]
  ${OVERLAYS_HELP}
${rootFlagsHelp(13)}
  --import-modules  answer for serve --import-modules (module tools offered)
  --no-scripts      answer for serve --no-scripts (every script unavailable)
  --interpreter NAME=PATH
             an interpreter serve would allow besides the defaults (repeatable)
  -h, --help show this help

Exit status: 0; 1 when a root given does not exist or there is no root at
all; 2 on a usage error. Skipped skills do not change it; use skillhost
validate to gate on validity.`

/** A host path for display, relative to the working directory, on one line. */
const shown = (path: string): string => escapeLine(relative(process.cwd(), path) || '.')

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)))
  return rows
    .map((r) =>
      r
        .map((cell, col) => cell.padEnd(widths[col]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

function print(
  catalog: CliCatalog,
  unavailable: readonly (readonly UnavailableTool[])[],
  io: CliIo,
): void {
  const rows = catalog.rows.map((r) => [
    escapeLine(r.id),
    r.status === 'active'
      ? r.warnings.length > 0
        ? `active (${r.warnings.length} warnings)`
        : 'active'
      : 'shadowed',
    shown(r.path),
    r.status === 'active'
      ? capDescription(r.description.replace(/\s+/g, ' '), 60)
      : `by ${shown(r.shadowedBy ?? '?')}`,
  ])
  if (rows.length > 0) io.stdout(`${table([['ID', 'STATUS', 'PATH', 'DESCRIPTION'], ...rows])}\n`)
  const active = catalog.rows.filter((r) => r.status === 'active').length
  io.stdout(`${active} skills, ${catalog.rows.length - active} shadowed\n`)
  catalog.rows.forEach((r, i) => {
    for (const w of r.warnings) io.stdout(`warning ${escapeLine(r.id)}: ${escapeLine(w)}\n`)
    for (const t of unavailable[i] ?? []) {
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
  async run(argv, io) {
    const args = parseArgs(argv, {
      booleans: ['json', 'strict', 'import-modules', 'no-scripts', ...ROOT_FLAGS.booleans],
      strings: ROOT_FLAGS.strings,
      lists: ['overlays', 'interpreter', ...ROOT_FLAGS.lists],
    })
    if (args.booleans.help) {
      io.stdout(`${HELP}\n`)
      return 0
    }
    const found = cliRoots(args)
    requireRoots(found)
    const progress = discoveryProgress(io, 'skillhost list')
    const catalog = await resolveCatalog(found.roots, {
      strict: args.booleans.strict === true,
      overlays: overlayDirs(args.lists.overlays),
      ...(found.maxDepth !== undefined && { maxDepth: found.maxDepth }),
      progress,
    })
    progress.done()
    const shape = {
      importModules: args.booleans['import-modules'] === true,
      scripts: args.booleans['no-scripts'] !== true,
      interpreters: scriptInterpreters(parseSandboxFlags(args.lists).interpreters),
    }
    const unavailable = await Promise.all(
      catalog.rows.map((row) => listUnavailableTools(row, shape)),
    )
    if (args.booleans.json) {
      const skills = catalog.rows.map(({ skill: _skill, source: _source, ...row }, i) => ({
        ...row,
        ...(row.status === 'active' ? { unavailableTools: unavailable[i] ?? [] } : {}),
      }))
      const { problems, sourceErrors } = catalog
      io.stdout(
        `${JSON.stringify({ roots: found.roots, skills, problems, sourceErrors }, null, 2)}\n`,
      )
    } else {
      if (found.defaults.length > 0) io.stdout(`roots: ${found.roots.map(shown).join(', ')}\n`)
      print(catalog, unavailable, io)
    }
    return 0
  },
}
