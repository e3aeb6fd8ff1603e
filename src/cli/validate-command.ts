import { relative, resolve } from 'node:path'
import type { CliCommand, CliIo } from './cli-command.js'
import { collectSkills, skillFolderOf } from './collect-skills.js'
import { escapeLine } from './escape-controls.js'
import { parseArgs } from './parse-args.js'

/** One line of the validate report: a skill folder and its verdict. */
export interface ValidateEntry {
  readonly path: string
  readonly name?: string
  readonly valid: boolean
  readonly errors: string[]
  readonly warnings: string[]
}

const HELP = `Usage: skillhost validate [--strict] [--json] <path...>

Validate agentskills.io skills. Each path is a skill folder (holding SKILL.md)
or a folder of skill folders, searched to a bounded depth.

By default the lenient client rules apply: a name that breaks the naming rule
or differs from its folder, an over-long description and the like are
warnings; a missing name or description, bad YAML or a bad skillhost.yaml
make the skill invalid. --strict turns warnings into errors and also rejects
unknown frontmatter keys, like the reference validator (skills-ref validate).

Options:
  --strict   apply the agentskills.io rules strictly
  --json     print the report as JSON
  -h, --help show this help

Exit status: 0 when every skill is valid, 1 when any is invalid or a path
holds no skill, 2 on a usage error.`

async function validateRoot(rawRoot: string, strict: boolean): Promise<ValidateEntry[]> {
  const [scan] = await collectSkills([rawRoot], strict)
  const root = resolve(rawRoot)
  const byPath = new Map<string, ValidateEntry>()
  const entry = (path: string): ValidateEntry => {
    let e = byPath.get(path)
    if (!e) {
      e = { path, valid: true, errors: [], warnings: [] }
      byPath.set(path, e)
    }
    return e
  }
  for (const skill of scan?.skills ?? [])
    Object.assign(entry(skillFolderOf(skill)), { name: skill.name })
  for (const p of scan?.problems ?? []) {
    const e = entry(p.hostPath ?? p.location)
    if (p.severity === 'error') {
      e.errors.push(p.message)
      Object.assign(e, { valid: false })
    } else e.warnings.push(p.message)
  }
  if (scan?.error) entry(root).errors.push(scan.error)
  if (byPath.size === 0)
    byPath.set(root, { path: root, valid: false, errors: ['no SKILL.md found here'], warnings: [] })
  return [...byPath.values()].map((e) => (e.errors.length > 0 ? { ...e, valid: false } : e))
}

/** The text report: one line per skill and one per problem (skill text is shown escaped). */
function print(entries: readonly ValidateEntry[], io: CliIo): void {
  for (const e of entries) {
    const shown = escapeLine(relative(process.cwd(), e.path) || '.')
    const mark = !e.valid ? 'invalid' : e.warnings.length > 0 ? 'ok (warnings)' : 'ok'
    io.stdout(`${mark.padEnd(13)} ${escapeLine(e.name ?? '-')}  ${shown}\n`)
    for (const m of e.errors) io.stdout(`    error: ${escapeLine(m)}\n`)
    for (const m of e.warnings) io.stdout(`    warning: ${escapeLine(m)}\n`)
  }
  const invalid = entries.filter((e) => !e.valid).length
  io.stdout(`${entries.length} checked: ${entries.length - invalid} valid, ${invalid} invalid\n`)
}

/** `skillhost validate`: a per-skill verdict; exit 1 when anything is invalid. */
export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'check skills against the agentskills.io rules',
  help: HELP,
  async run(argv, io) {
    const args = parseArgs(argv, { booleans: ['json', 'strict'] })
    if (args.booleans.help) {
      io.stdout(`${HELP}\n`)
      return 0
    }
    if (args.positionals.length === 0) {
      io.stderr(`skillhost validate: give at least one path\n\n${HELP}\n`)
      return 2
    }
    const entries: ValidateEntry[] = []
    for (const path of args.positionals)
      entries.push(...(await validateRoot(path, args.booleans.strict === true)))
    const ok = entries.every((e) => e.valid)
    if (args.booleans.json) io.stdout(`${JSON.stringify({ ok, skills: entries }, null, 2)}\n`)
    else print(entries, io)
    return ok ? 0 : 1
  },
}
