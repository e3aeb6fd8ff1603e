import { relative } from 'node:path'
import { escapeLine, quoteName } from '../../common/index.js'
import type { SkillPermissionRequest } from '../../sources/index.js'
import { scriptInterpreters } from '../../tiers/scripts/index.js'
import { prepareScriptInterpreters } from '../../tiers/scripts/internal.js'
import type { CliCommand, CliIo } from '../shared/cli-command.js'
import {
  cliRoots,
  DEFAULT_ROOTS_HELP,
  ROOT_FLAGS,
  ROOT_FLAGS_HELP,
  requireRoots,
} from '../shared/cli-roots.js'
import { discoveryProgress } from '../shared/discovery-progress.js'
import type { HelpSpec } from '../shared/help-text.js'
import { LOCKED_HELP, lockedFlag } from '../shared/locked-flag.js'
import { mapLimit } from '../shared/map-limit.js'
import { isNotSearched, notSearchedLines } from '../shared/not-searched.js'
import { OVERLAYS_HELP, overlayDirs } from '../shared/overlay-dirs.js'
import { parseArgs } from '../shared/parse-args.js'
import { plural } from '../shared/plural.js'
import { type CliCatalog, resolveCatalog } from '../shared/resolve-catalog.js'
import { parseSandboxFlags } from '../shared/sandbox-flags.js'
import { UNUSABLE_ROOT_STATUS, usableRoots } from '../shared/usable-roots.js'
import { wrapText } from '../shared/wrap-text.js'
import { writeJson } from '../shared/write-json.js'
import { listTable } from './list-table.js'
import { type ListedTools, type ListServeShape, listTools } from './list-tools.js'

const TOOLS_LEGEND =
  'TOOLS: m module, i isolated, s declared scripts, u run_<skill>_script (undeclared scripts); names in --json.'

const HELP: HelpSpec = {
  usage: [
    'skillhost list [--strict] [--json] [--overlays DIR] [--locked FILE] [--root DIR] [--no-default-roots] [--max-depth N] [--import-modules] [--no-scripts] [--no-undeclared-scripts] [--interpreter NAME=PATH ...] [root...]',
  ],
  blocks: [
    "List the skills the roots serve, in catalog order. An earlier root wins an id collision; later copies are shown as shadowed, each with the ref serve's load_skill takes to load that copy (source:root-number/folder, e.g. filesystem:2/vendor/pdf; none under --locked). Skills that were skipped (invalid, unreadable, too large), folders not searched (below the depth, or inside another skill) and roots that failed are listed after the table. Symlinked skill folders are followed to their target.",
    'The TOOLS column counts the tools skillhost serve with the same flags would offer, by tier: m module (named by its module file: list never imports code), i isolated, s declared scripts, u run_<skill>_script (the skill ships a file an allowed or refused interpreter would run, and undeclared scripts are allowed). Tools a skill declares that serve would not offer are listed after the table, under the name they would have had, with the reason and what would enable them. Nothing is imported or run.',
    "One row per skill, fitted to the terminal's width (80 columns when stdout is not a terminal): descriptions are cut with …, and the PATH column is cut, then left out, when there is no room for it. --json has everything whole. On a terminal, a walk that takes longer than a second shows its progress on stderr.",
    DEFAULT_ROOTS_HELP,
    {
      title: 'Options:',
      items: [
        { term: '--strict', text: 'apply the agentskills.io rules strictly' },
        {
          term: '--json',
          text: 'print { roots, skills, problems, sourceErrors } as JSON; each skill carries ref (what load_skill takes), each active skill tools: { module, isolated, scripts, undeclared } (tool names), unavailableTools: [{ name, reason, enable, detail? }], interpreters: { <script tool>: { name, program, version? } } (what each declared script runs with), undeclaredInterpreters: [{ name, program, version? }] (what run_<skill>_script would run its other files with) and, when it asks for any, permissions: { network, read, write } (its request as written, never a grant); a root that cannot be searched is in sourceErrors',
        },
        OVERLAYS_HELP,
        LOCKED_HELP,
        ...ROOT_FLAGS_HELP,
        {
          term: '--import-modules',
          text: 'answer for serve --import-modules (module tools offered)',
        },
        {
          term: '--no-scripts',
          text: 'answer for serve --no-scripts (every script unavailable)',
        },
        {
          term: '--no-undeclared-scripts',
          text: 'answer for serve --no-undeclared-scripts (no run_<skill>_script)',
        },
        {
          term: '--interpreter NAME=PATH',
          text: 'an interpreter serve would allow besides the defaults (repeatable)',
        },
        { term: '-h, --help', text: 'show this help' },
      ],
    },
    'Exit status: 0; 1 when a root cannot be searched (missing, not a folder, unreadable: named on stderr, the other roots are listed) or there is no root at all; 2 on a usage error. Skipped skills do not change it; use skillhost validate to gate on validity.',
  ],
}

/** A host path for display, relative to the working directory, on one line. */
const shown = (path: string): string => escapeLine(relative(process.cwd(), path) || '.')

/** The width `list` fits to when stdout is not a terminal. */
export const LIST_WIDTH = 80
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
 * A permission request in one line, each path quoted as the skill wrote it,
 * and what becomes of it: serve grants a path only within its policy and
 * with the gate's approval, and never network.
 */
function requestText(asked: SkillPermissionRequest): string {
  const paths = (kind: string, list: readonly string[]) =>
    list.length === 0 ? [] : [`${kind} ${list.map(quoteName).join(', ')}`]
  const parts = [
    ...(asked.network ? ['network (never granted)'] : []),
    ...paths('read', asked.read),
    ...paths('write', asked.write),
  ]
  return `${parts.join('; ')} (granted at load only within serve's policy, once approved)`
}

/** The STATUS cell of a row. */
function statusCell(r: CliCatalog['rows'][number]): string {
  if (r.status !== 'active') return 'shadowed'
  const state = r.pin?.state === 'changed-since-pinned' ? 'changed-since-pinned' : 'active'
  return r.warnings.length > 0 ? `${state} (${plural(r.warnings.length, 'warning')})` : state
}

function print(catalog: CliCatalog, tools: readonly ListedTools[], io: CliIo): void {
  const columns = io.columns ?? LIST_WIDTH
  // A line longer than the width goes on under a two-column indent, broken between words.
  const say = (text: string, indent = '  ', first = ''): void => {
    for (const line of wrapText(text, columns, first, indent)) io.stdout(`${line}\n`)
  }
  const rows = catalog.rows.map((r, i) => [
    escapeLine(r.id),
    statusCell(r),
    shown(r.path),
    r.status === 'active' ? toolsCell(tools[i]!) : '',
    r.status === 'active'
      ? escapeLine(r.description.replace(/\s+/g, ' '))
      : `${r.ref === undefined ? '' : `ref ${escapeLine(r.ref)}, `}by ${shown(r.shadowedBy ?? '?')}`,
  ])
  if (rows.length > 0) {
    const header = ['ID', 'STATUS', 'PATH', 'TOOLS', 'DESCRIPTION']
    const table = listTable([header, ...rows], columns, PATH_COLUMN)
    // One write per table, not per row: tens of thousands of rows are one call.
    io.stdout(`${table.lines.join('\n')}\n`)
    const dropped = table.pathDropped ? ` PATH left out to fit ${columns} columns.` : ''
    say(`${TOOLS_LEGEND}${dropped}`)
  }
  const active = catalog.rows.filter((r) => r.status === 'active').length
  io.stdout(`${plural(active, 'skill')}, ${catalog.rows.length - active} shadowed\n`)
  catalog.rows.forEach((r, i) => {
    for (const w of r.warnings) say(`warning ${escapeLine(r.id)}: ${escapeLine(w)}`)
    if (r.pin?.state === 'changed-since-pinned')
      say(
        `changed ${escapeLine(r.id)}: pinned ${r.pin.pinnedDigest}, now ${r.pin.digest}; it will not load (skillhost lock pins it again)`,
      )
    for (const t of tools[i]?.unavailable ?? []) {
      const why = t.detail === undefined ? '' : ` (${escapeLine(t.detail)})`
      say(`unavailable ${escapeLine(r.id)}: ${escapeLine(t.name)}: ${t.reason}${why}; ${t.enable}`)
    }
    const asked = tools[i]?.permissions
    if (asked) say(`requests ${escapeLine(r.id)}: ${requestText(asked)}`)
  })
  const skipped = catalog.problems.filter((p) => p.severity === 'error')
  // Folders, not problems: one folder may have several.
  const folders = new Set(skipped.map((p) => p.hostPath ?? p.location)).size
  if (skipped.length > 0) io.stdout(`\nSkipped (${plural(folders, 'folder')}):\n`)
  for (const p of skipped)
    say(`${shown(p.hostPath ?? p.location)}: ${p.code}: ${escapeLine(p.message)}`, '    ', '  ')
  const warnings = catalog.problems.filter((x) => x.severity === 'warning' && x.id === undefined)
  for (const p of warnings.filter((x) => !isNotSearched(x)))
    say(`warning ${shown(p.hostPath ?? p.location)}: ${escapeLine(p.message)}`)
  for (const line of notSearchedLines(warnings, shown)) {
    const item = line.startsWith('  ')
    say(line, item ? '    ' : '  ', item ? '  ' : '')
  }
  for (const e of catalog.sourceErrors)
    say(`source error ${shown(e.root)}: ${escapeLine(e.message)}`)
}

/** `skillhost list`: the catalog of the given roots, with shadowed and skipped skills. */
export const listCommand: CliCommand = {
  name: 'list',
  help: HELP,
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
    const found = cliRoots(args)
    requireRoots(found)
    const lock = await lockedFlag(args.strings.locked)
    const roots = usableRoots(found.roots, io, 'list', args.booleans.json === true)
    const progress = discoveryProgress(io, 'skillhost list')
    // The user's python is asked where it lives while the walk runs, not before it.
    const python = prepareScriptInterpreters()
    const catalog = await resolveCatalog(roots.usable, {
      strict: args.booleans.strict === true,
      ...(lock && { lock }),
      overlays: overlayDirs(args.lists.overlays),
      ...(found.maxDepth !== undefined && { maxDepth: found.maxDepth }),
      progress,
    })
    progress.done()
    await python
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
        const { unavailable, interpreters, undeclaredInterpreters, permissions, ...byTier } =
          tools[i]!
        return {
          ...row,
          tools: byTier,
          unavailableTools: unavailable,
          interpreters,
          undeclaredInterpreters,
          ...(permissions && { permissions }),
        }
      })
      // A root that could not be searched is a failed root too (the text says so on stderr).
      const unusable = roots.unusable.map((u) => ({
        root: u.root,
        message: `skill root ${u.reason}`,
      }))
      const sourceErrors = [...unusable, ...catalog.sourceErrors]
      const { problems } = catalog
      writeJson({ roots: found.roots, skills, problems, sourceErrors }, io.stdout)
    } else {
      if (found.defaults.length > 0) io.stdout(`roots: ${found.roots.map(shown).join(', ')}\n`)
      print(catalog, tools, io)
    }
    return roots.unusable.length > 0 ? UNUSABLE_ROOT_STATUS : 0
  },
}
