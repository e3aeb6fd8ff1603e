import type { CliCommand } from './cli-command.js'
import {
  cliRoots,
  DEFAULT_ROOTS_HELP,
  ROOT_FLAGS,
  requireRoots,
  rootFlagsHelp,
} from './cli-roots.js'
import { escapeLine } from './escape-controls.js'
import { notSearchedLines } from './not-searched.js'
import { parseArgs, UsageError } from './parse-args.js'
import { CHARS_PER_TOKEN, renderAvailableSkills } from './render-available-skills.js'
import { resolveCatalog } from './resolve-catalog.js'

const HELP = `Usage: skillhost prompt [--max-tokens N] [--strict] [--root DIR] [root...]

Print the <available_skills> block for a system prompt: one <skill> with
<name>, <description> and <location> (the SKILL.md path) per active skill, in
catalog order, HTML-escaped. Shadowed and invalid skills are left out.

${DEFAULT_ROOTS_HELP}

Options:
  --max-tokens N  fit the block into about N tokens, estimated as characters
                  divided by ${CHARS_PER_TOKEN}: long descriptions are shortened first, then
                  skills are dropped from the end; what was cut is said on stderr
  --strict        apply the agentskills.io rules strictly
${rootFlagsHelp(18)}
  -h, --help      show this help

Exit status: 0; 1 when a root given does not exist or there is no root at
all; 2 on a usage error.`

/** `skillhost prompt`: the `<available_skills>` block for the given roots. */
export const promptCommand: CliCommand = {
  name: 'prompt',
  summary: 'print the <available_skills> block for a system prompt',
  help: HELP,
  async run(argv, io) {
    const args = parseArgs(argv, {
      booleans: ['strict', ...ROOT_FLAGS.booleans],
      strings: ['max-tokens', ...ROOT_FLAGS.strings],
      lists: ROOT_FLAGS.lists,
    })
    if (args.booleans.help) {
      io.stdout(`${HELP}\n`)
      return 0
    }
    const found = cliRoots(args)
    const rawMax = args.strings['max-tokens']
    const maxTokens = rawMax === undefined ? undefined : Number(rawMax)
    if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0)) {
      throw new UsageError('--max-tokens must be a positive whole number')
    }
    requireRoots(found)
    const catalog = await resolveCatalog(found.roots, {
      strict: args.booleans.strict === true,
      ...(found.maxDepth !== undefined && { maxDepth: found.maxDepth }),
    })
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
    for (const line of notSearchedLines(catalog.problems, escapeLine))
      io.stderr(`skillhost prompt: ${line}\n`)
    for (const e of catalog.sourceErrors)
      io.stderr(`skillhost prompt: source error ${e.root}: ${e.message}\n`)
    return 0
  },
}
