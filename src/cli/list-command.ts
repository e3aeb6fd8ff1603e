import { relative } from 'node:path'
import { capDescription } from '../manifest/cap-description.js'
import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import { scriptInterpreters } from '../tiers/scripts/script-interpreters.js'
import type { CliCommand, CliIo } from './cli-command.js'
import { escapeLine } from './escape-controls.js'
import { listUnavailableTools } from './list-unavailable.js'
import { OVERLAYS_HELP, overlayDirs } from './overlay-dirs.js'
import { parseArgs } from './parse-args.js'
import { type CliCatalog, resolveCatalog } from './resolve-catalog.js'
import { parseSandboxFlags } from './sandbox-flags.js'

const HELP = `Usage: skillhost list [--strict] [--json] [--overlays DIR] [--import-modules]
                     [--no-scripts] [--interpreter NAME=PATH ...] <root...>

List the skills the given roots serve, in catalog order. An earlier root wins
an id collision; later copies are shown as shadowed. Skills that were skipped
(invalid, unreadable, too large) and roots that failed are listed after the
table with the reason. Tools a skill declares that skillhost serve with the
same flags would not offer are listed too, under the name they would have
had, with the reason and what would enable them (nothing is imported or run).

Options:
  --strict   apply the agentskills.io rules strictly
  --json     print { skills, problems, sourceErrors } as JSON; each skill
             carries unavailableTools: [{ name, reason, enable, detail? }]
  ${OVERLAYS_HELP}
  --import-modules  answer for serve --import-modules (module tools offered)
  --no-scripts      answer for serve --no-scripts (every script unavailable)
  --interpreter NAME=PATH
             an interpreter serve would allow besides the defaults (repeatable)
  -h, --help show this help

Exit status: 0, or 2 on a usage error. Skipped skills do not change it; use
skillhost validate to gate on validity.`

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
  for (const p of catalog.problems.filter((x) => x.severity === 'warning' && x.id === undefined)) {
    io.stdout(`warning ${shown(p.hostPath ?? p.location)}: ${escapeLine(p.message)}\n`)
  }
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
      booleans: ['json', 'strict', 'import-modules', 'no-scripts'],
      lists: ['overlays', 'interpreter'],
    })
    if (args.booleans.help) {
      io.stdout(`${HELP}\n`)
      return 0
    }
    if (args.positionals.length === 0) {
      io.stderr(`skillhost list: give at least one root\n\n${HELP}\n`)
      return 2
    }
    const catalog = await resolveCatalog(
      args.positionals,
      args.booleans.strict === true,
      overlayDirs(args.lists.overlays),
    )
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
      io.stdout(
        `${JSON.stringify({ skills, problems: catalog.problems, sourceErrors: catalog.sourceErrors }, null, 2)}\n`,
      )
    } else print(catalog, unavailable, io)
    return 0
  },
}
