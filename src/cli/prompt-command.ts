import type { CliCommand } from './cli-command.js'
import { parseArgs, UsageError } from './parse-args.js'
import { CHARS_PER_TOKEN, renderAvailableSkills } from './render-available-skills.js'
import { resolveCatalog } from './resolve-catalog.js'

const HELP = `Usage: skillhost prompt [--max-tokens N] [--strict] <root...>

Print the <available_skills> block for a system prompt: one <skill> with
<name>, <description> and <location> (the SKILL.md path) per active skill, in
catalog order, HTML-escaped. Shadowed and invalid skills are left out.

Options:
  --max-tokens N  fit the block into about N tokens, estimated as characters
                  divided by ${CHARS_PER_TOKEN}: long descriptions are shortened first, then
                  skills are dropped from the end; what was cut is said on stderr
  --strict        apply the agentskills.io rules strictly
  -h, --help      show this help`

/** `skillhost prompt`: the `<available_skills>` block for the given roots. */
export const promptCommand: CliCommand = {
  name: 'prompt',
  summary: 'print the <available_skills> block for a system prompt',
  help: HELP,
  async run(argv, io) {
    const args = parseArgs(argv, { booleans: ['strict'], strings: ['max-tokens'] })
    if (args.booleans.help) {
      io.stdout(`${HELP}\n`)
      return 0
    }
    if (args.positionals.length === 0) throw new UsageError('give at least one root')
    const rawMax = args.strings['max-tokens']
    const maxTokens = rawMax === undefined ? undefined : Number(rawMax)
    if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0)) {
      throw new UsageError('--max-tokens must be a positive whole number')
    }
    const catalog = await resolveCatalog(args.positionals, args.booleans.strict === true)
    const entries = catalog.rows
      .filter((r) => r.status === 'active')
      .map((r) => ({ name: r.name, description: r.description, location: r.location }))
    const out = renderAvailableSkills(entries, maxTokens)
    io.stdout(`${out.text}\n`)
    if (out.shortened > 0 || out.dropped > 0) {
      io.stderr(
        `skillhost prompt: to fit ${maxTokens} tokens (estimated as characters/${CHARS_PER_TOKEN}), shortened ${out.shortened} descriptions and dropped ${out.dropped} of ${entries.length} skills; the block is about ${out.estimatedTokens} tokens\n`,
      )
    }
    const skipped = catalog.problems.filter((p) => p.severity === 'error').length
    if (skipped > 0)
      io.stderr(
        `skillhost prompt: ${skipped} skill folders were skipped; run skillhost list for reasons\n`,
      )
    for (const e of catalog.sourceErrors)
      io.stderr(`skillhost prompt: source error ${e.root}: ${e.message}\n`)
    return 0
  },
}
