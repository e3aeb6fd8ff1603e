import { escapeLine } from '../../common/index.js'
import { CHARS_PER_TOKEN, renderAvailableSkills } from '../../index.js'
import type { CliCommand } from '../shared/cli-command.js'
import {
  cliRoots,
  DEFAULT_ROOTS_HELP,
  ROOT_FLAGS,
  requireRoots,
  rootFlagsHelp,
} from '../shared/cli-roots.js'
import { discoveryProgress } from '../shared/discovery-progress.js'
import { notSearchedLines } from '../shared/not-searched.js'
import { parseArgs, UsageError } from '../shared/parse-args.js'
import { resolveCatalog } from '../shared/resolve-catalog.js'

const HELP = `Usage: skillhost prompt [--max-tokens N] [--strict] [--root DIR] [root...]

Print the <available_skills> block for a system prompt: one <skill> with
<name>, <description> and <location> (the SKILL.md path) per active skill, in
catalog order, HTML-escaped. Shadowed and invalid skills are left out, and so
are skills with disable-model-invocation: true (the host loads them itself).

${DEFAULT_ROOTS_HELP}

Options:
  --max-tokens N  fit the block into about N tokens, estimated as characters
                  divided by ${CHARS_PER_TOKEN}: nothing is cut when all fits; else only
                  the longest descriptions are shortened, to the largest length
                  that fits (at least 160 characters); only then are skills
                  dropped from the end, and the block ends in a <more_skills>
                  note saying how many are not shown and that list_skills with
                  a query finds them; what was cut is also said on stderr
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
    const progress = discoveryProgress(io, 'skillhost prompt')
    const catalog = await resolveCatalog(found.roots, {
      strict: args.booleans.strict === true,
      ...(found.maxDepth !== undefined && { maxDepth: found.maxDepth }),
      progress,
    })
    progress.done()
    const entries = catalog.rows
      // disable-model-invocation: the block is the model's catalog, so host-only skills stay out.
      .filter((r) => r.status === 'active' && r.skill?.disableModelInvocation !== true)
      .map((r) => ({ name: r.name, description: r.description, location: r.location }))
    const out = renderAvailableSkills(entries, maxTokens === undefined ? {} : { maxTokens })
    io.stdout(`${out.text}\n`)
    if (out.shortened > 0 || out.dropped > 0) {
      io.stderr(
        `skillhost prompt: to fit ${maxTokens} tokens (estimated as characters/${CHARS_PER_TOKEN}), shortened ${out.shortened} descriptions and dropped ${out.dropped} of ${entries.length} skills; the block is about ${out.estimatedTokens} tokens${out.dropped > 0 ? '; skillhost list shows them all' : ''}\n`,
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
