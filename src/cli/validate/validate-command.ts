import { readdir } from 'node:fs/promises'
import { relative } from 'node:path'
import { escapeLine, personText, SkillHostError } from '../../common/index.js'
import { SKILL_SIDECAR_FILE } from '../../manifest/index.js'
import { FileSystemSkillSource, type SkillProblem } from '../../sources/index.js'
import {
  prepareScriptInterpreters,
  scriptInterpreters,
} from '../../tiers/scripts/interpreter-checks.js'
import type { CliCommand, CliIo } from '../shared/cli-command.js'
import {
  cliRoots,
  DEFAULT_ROOTS_HELP,
  ROOT_FLAGS,
  ROOT_FLAGS_HELP,
  requireRoots,
} from '../shared/cli-roots.js'
import type { CollectOptions } from '../shared/collect-skills.js'
import { discoveryProgress } from '../shared/discovery-progress.js'
import type { HelpSpec } from '../shared/help-text.js'
import { LOCKED_HELP, lockedFlag } from '../shared/locked-flag.js'
import { notSearchedLines } from '../shared/not-searched.js'
import { OVERLAYS_HELP, overlayDirs } from '../shared/overlay-dirs.js'
import { parseArgs, UsageError } from '../shared/parse-args.js'
import { parseSandboxFlags } from '../shared/sandbox-flags.js'
import { padToWidth, textWidth } from '../shared/text-width.js'
import { usableRoots } from '../shared/usable-roots.js'
import { writeJson } from '../shared/write-json.js'
import { type ValidateEntry, validateRoot } from './validate-root.js'

const HELP: HelpSpec = {
  usage: [
    'skillhost validate [--lenient] [--json] [--overlays DIR] [--locked FILE] [--interpreter NAME=PATH ...] [--root DIR] [--no-default-roots] [--max-depth N] [path...]',
  ],
  blocks: [
    "Validate agentskills.io skills. Each path is a skill folder (holding SKILL.md), a SKILL.md file, or a folder of skill folders, searched to a bounded depth; folders below it and skills nested in another skill's folder are reported. Symlinked skill folders are followed to their target.",
    DEFAULT_ROOTS_HELP,
    "By default the verdict is the agentskills.io specification's, as the reference validator (skills-ref validate) gives it: a name that breaks the naming rule or differs from its folder, an over-long description or compatibility, unknown frontmatter keys, a missing name or description, bad YAML or a bad skillhost.yaml make the skill invalid. --lenient shows what a lenient host (skillhost list and serve by default) would load: the spec's softer rules become warnings and unknown keys are kept. Where skillhost and skills-ref still differ, docs/validate.md says why. With --overlays, a skill's overlay sidecar is validated in place of its own, exactly as serve would load it; an overlay for a skill none of the paths holds is parsed on its own and reported with a warning.",
    'A skillhost.yaml script whose interpreter skillhost run and serve would refuse is an error; one they accept but that is not installed here (say, node) is a warning, in either mode: it depends on the host, not the skill. The allowed names are sh, bash, python, python3 and node, plus any --interpreter given (as run and serve take it).',
    {
      title: 'Options:',
      items: [
        {
          term: '--lenient',
          text: 'report what a lenient host would load (spec violations it tolerates are warnings)',
        },
        { term: '--strict', text: 'the default verdict; accepted for compatibility (no-op)' },
        {
          term: '--json',
          text: 'print the report as JSON: { ok, skills, notSearched, unusableRoots }',
        },
        OVERLAYS_HELP,
        {
          ...LOCKED_HELP,
          text: `${LOCKED_HELP.text} (with it, a skill not pinned as it is now is invalid: it would not load)`,
        },
        {
          term: '--interpreter NAME=PATH',
          text: 'also allow interpreter NAME (repeatable), as run and serve do',
        },
        ...ROOT_FLAGS_HELP,
        { term: '-h, --help', text: 'show this help' },
      ],
    },
    'Exit status: 0 when every skill is valid; 1 when any is invalid, a path holds no skill, or a path cannot be searched (missing, not a folder, unreadable: named on stderr, the other paths are checked); 2 on a usage error.',
  ],
}

/**
 * Overlay sidecars for skills none of the paths holds: each id's winning
 * overlay (the same lookup serve makes, `FileSystemSkillSource.overlaySidecar`),
 * parsed by the one sidecar parser.
 * Its declared files cannot be checked without the skill, hence a warning.
 */
async function validateOrphanOverlays(
  overlays: readonly string[],
  ids: ReadonlySet<string>,
): Promise<ValidateEntry[]> {
  const candidates = new Set<string>()
  for (const dir of overlays) {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => []))
      if (!ids.has(e.name)) candidates.add(e.name)
  }
  const label = `overlay ${SKILL_SIDECAR_FILE}`
  const entries: ValidateEntry[] = []
  for (const id of [...candidates].sort()) {
    try {
      const hit = await FileSystemSkillSource.overlaySidecar(overlays, id)
      if (!hit) continue
      const warning = `no skill "${id}" among the given paths; the files its ${label} names were not checked`
      entries.push({ path: hit.folder, name: id, valid: true, errors: [], warnings: [warning] })
    } catch (err) {
      if (!SkillHostError.isInstance(err)) throw err
      const path = typeof err.data.folder === 'string' ? err.data.folder : id
      entries.push({ path, name: id, valid: false, errors: [personText(err)], warnings: [] })
    }
  }
  return entries
}

/** The text report: one line per skill and one per problem (skill text is shown escaped). */
const shown = (path: string): string => escapeLine(relative(process.cwd(), path) || '.')

/** The widest the name column grows; a longer name pushes its own path right. */
const NAME_COLUMN_MAX = 32

function print(
  entries: readonly ValidateEntry[],
  notSearched: readonly SkillProblem[],
  io: CliIo,
): void {
  // The name column as wide as its widest name (up to NAME_COLUMN_MAX), so paths line up.
  const names = entries.map((e) => escapeLine(e.name ?? '-'))
  const width = Math.min(NAME_COLUMN_MAX, Math.max(0, ...names.map((n) => textWidth(n))))
  for (const [i, e] of entries.entries()) {
    const path = shown(e.path)
    const mark = !e.valid ? 'invalid' : e.warnings.length > 0 ? 'ok (warnings)' : 'ok'
    const name = names[i]!
    io.stdout(`${mark.padEnd(13)} ${padToWidth(name, width)}  ${path}\n`)
    for (const m of e.errors) io.stdout(`    error: ${escapeLine(m)}\n`)
    for (const m of e.warnings) io.stdout(`    warning: ${escapeLine(m)}\n`)
  }
  for (const line of notSearchedLines(notSearched, shown)) io.stdout(`${line}\n`)
  const invalid = entries.filter((e) => !e.valid).length
  io.stdout(`${entries.length} checked: ${entries.length - invalid} valid, ${invalid} invalid\n`)
}

/** `skillhost validate`: a per-skill verdict; exit 1 when anything is invalid. */
export const validateCommand: CliCommand = {
  name: 'validate',
  help: HELP,
  async run(argv, io) {
    const args = parseArgs(argv, {
      booleans: ['json', 'strict', 'lenient', ...ROOT_FLAGS.booleans],
      strings: ['locked', ...ROOT_FLAGS.strings],
      lists: ['overlays', 'interpreter', ...ROOT_FLAGS.lists],
    })
    if (args.booleans.lenient && args.booleans.strict)
      throw new UsageError('--lenient and --strict contradict each other; give one')
    const found = cliRoots(args)
    requireRoots(found)
    const roots = usableRoots(found.roots, io, 'validate', args.booleans.json === true)
    const overlays = overlayDirs(args.lists.overlays)
    const flags = parseSandboxFlags(args.lists)
    // The user's python is asked where it lives while the first walk runs, not before it.
    const python = prepareScriptInterpreters()
    let allowed: Readonly<Record<string, readonly string[]>> | undefined
    const allowedNow = async () => {
      await python
      allowed ??= scriptInterpreters(flags.interpreters)
      return allowed
    }
    const lock = await lockedFlag(args.strings.locked)
    const progress = discoveryProgress(io, 'skillhost validate')
    const options: CollectOptions = {
      ...(lock && { lock }),
      // The spec's verdict unless --lenient; --strict is the default, kept as a no-op.
      strict: args.booleans.lenient !== true,
      overlays,
      ...(found.maxDepth !== undefined && { maxDepth: found.maxDepth }),
      progress,
      // Validate reads no skill's tools: only the files the loader reads are stat'd.
      statLoadedOnly: true,
    }
    const entries: ValidateEntry[] = []
    const notSearched: SkillProblem[] = []
    const ids = new Set<string>()
    for (const path of roots.usable)
      entries.push(...(await validateRoot(path, options, ids, allowedNow, notSearched)))
    progress.done()
    entries.push(...(await validateOrphanOverlays(overlays, ids)))
    const ok = entries.every((e) => e.valid) && roots.unusable.length === 0
    if (args.booleans.json)
      writeJson({ ok, skills: entries, notSearched, unusableRoots: roots.unusable }, io.stdout)
    else print(entries, notSearched, io)
    return ok ? 0 : 1
  },
}
