import { escapeLine } from '../../common/index.js'
import { CHARS_PER_TOKEN, renderAvailableSkills } from '../../index.js'
import type { CliCommand } from '../shared/cli-command.js'
import {
  cliRoots,
  DEFAULT_ROOTS_HELP,
  ROOT_FLAGS,
  ROOT_FLAGS_HELP,
  requireRoots,
} from '../shared/cli-roots.js'
import { discoveryProgress } from '../shared/discovery-progress.js'
import type { HelpSpec } from '../shared/help-text.js'
import { notSearchedLines } from '../shared/not-searched.js'
import { parseArgs, UsageError } from '../shared/parse-args.js'
import { plural } from '../shared/plural.js'
import { resolveCatalog } from '../shared/resolve-catalog.js'
import { UNUSABLE_ROOT_STATUS, usableRoots } from '../shared/usable-roots.js'

const HELP: HelpSpec = {
  usage: [
    'skillhost prompt [--max-tokens N] [--strict] [--root DIR] [--no-default-roots] [--max-depth N] [root...]',
  ],
  blocks: [
    'Print the <available_skills> block for a system prompt: one <skill> with <name>, <description> and <location> (the SKILL.md path) per active skill, in catalog order, HTML-escaped. Shadowed and invalid skills are left out, and so are skills with disable-model-invocation: true (the host loads them itself).',
    DEFAULT_ROOTS_HELP,
    {
      title: 'Options:',
      items: [
        {
          term: '--max-tokens N',
          text: `fit the block into about N tokens, estimated as characters divided by ${CHARS_PER_TOKEN}: nothing is cut when all fits; else only the longest descriptions are shortened, to the largest length that fits (at least 160 characters); only then are skills dropped from the end, and the block ends in a <more_skills> note saying how many are not shown and that list_skills with a query finds them; what was cut is also said on stderr`,
        },
        { term: '--strict', text: 'apply the agentskills.io rules strictly' },
        ...ROOT_FLAGS_HELP,
        { term: '-h, --help', text: 'show this help' },
      ],
    },
    "Exit status: 0; 1 when a root cannot be searched (missing, not a folder, unreadable: named on stderr, the block holds the other roots' skills) or there is no root at all; 2 on a usage error.",
  ],
}

/** `skillhost prompt`: the `<available_skills>` block for the given roots. */
export const promptCommand: CliCommand = {
  name: 'prompt',
  help: HELP,
  async run(argv, io) {
    const args = parseArgs(argv, {
      booleans: ['strict', ...ROOT_FLAGS.booleans],
      strings: ['max-tokens', ...ROOT_FLAGS.strings],
      lists: ROOT_FLAGS.lists,
    })
    const found = cliRoots(args)
    const rawMax = args.strings['max-tokens']
    const maxTokens = rawMax === undefined ? undefined : Number(rawMax)
    if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0)) {
      throw new UsageError('--max-tokens must be a positive whole number')
    }
    requireRoots(found)
    const roots = usableRoots(found.roots, io, 'prompt')
    const progress = discoveryProgress(io, 'skillhost prompt')
    const catalog = await resolveCatalog(roots.usable, {
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
        `skillhost prompt: to fit ${maxTokens} tokens (estimated as characters/${CHARS_PER_TOKEN}), shortened ${plural(out.shortened, 'description')} and dropped ${out.dropped} of ${plural(entries.length, 'skill')}; the block is about ${plural(out.estimatedTokens, 'token')}${out.dropped > 0 ? '; skillhost list shows them all' : ''}.\n`,
      )
    }
    // Folders, not problems: one folder may have several.
    const skipped = new Set(
      catalog.problems.filter((p) => p.severity === 'error').map((p) => p.hostPath ?? p.location),
    ).size
    if (skipped > 0)
      io.stderr(
        `skillhost prompt: ${plural(skipped, 'skill folder')} skipped; skillhost list says why.\n`,
      )
    for (const line of notSearchedLines(catalog.problems, escapeLine))
      io.stderr(`skillhost prompt: ${line}\n`)
    for (const e of catalog.sourceErrors)
      io.stderr(`skillhost prompt: source error ${e.root}: ${e.message}\n`)
    return roots.unusable.length > 0 ? UNUSABLE_ROOT_STATUS : 0
  },
}
