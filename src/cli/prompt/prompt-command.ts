import { escapeLine } from '../../common/index.js'
import {
  CHARS_PER_TOKEN,
  DEFAULT_CATALOG_SHARE,
  type RenderedAvailableSkills,
  renderAvailableSkills,
} from '../../index.js'
import { parseCatalogBudgetFlags } from '../shared/catalog-flags.js'
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
import { notSearchedLines } from '../shared/not-searched.js'
import { parseArgs, UsageError } from '../shared/parse-args.js'
import { plural } from '../shared/plural.js'
import { resolveCatalog } from '../shared/resolve-catalog.js'
import { UNUSABLE_ROOT_STATUS, usableRoots } from '../shared/usable-roots.js'

const HELP: HelpSpec = {
  usage: [
    'skillhost prompt [--window TOKENS [--share F]] [--max-tokens N] [--pin ID]... [--hide ID]... [--locations] [--strict] [--root DIR] [--no-default-roots] [--max-depth N] [root...]',
  ],
  blocks: [
    'Print the <available_skills> block for a system prompt: one <skill> with <name> and <description> per active skill (and <location>, the SKILL.md path, with --locations), HTML-escaped, pinned skills first, then by name. Shadowed and invalid skills are left out, and so are skills with disable-model-invocation: true (the host loads them itself). The same skills always give the same bytes.',
    DEFAULT_ROOTS_HELP,
    {
      title: 'Options:',
      items: [
        {
          term: '--window TOKENS',
          text: `the model's context window: the block takes at most TOKENS × share × ${CHARS_PER_TOKEN} characters (--window 200000 → 8,000). Overflow goes in steps: every description whole; else descriptions shortened evenly (to the longest common length that fits, at least 160 characters); else the last skills by name only in a <skill_names> list; else not shown. A cut block ends in a <more_skills> line with the total, how many are not shown or shown by name only, and that list_skills with a query finds them; what was cut is also said on stderr`,
        },
        {
          term: '--share F',
          text: `the part of the window the block may take, above 0 and at most 1 (default ${DEFAULT_CATALOG_SHARE})`,
        },
        {
          term: '--max-tokens N',
          text: `a fixed allowance of about N tokens (characters divided by ${CHARS_PER_TOKEN}), with the same steps; with --window, the smaller allowance wins`,
        },
        {
          term: '--pin ID',
          text: 'always describe the skills whose id matches (repeatable; * and ? are wildcards): they come first',
        },
        {
          term: '--hide ID',
          text: 'leave the skills whose id matches out of the block, uncounted (repeatable; * and ? are wildcards); a host serving load_skill still loads them by id',
        },
        {
          term: '--locations',
          text: "add each skill's <location> (its SKILL.md path), for an agent that reads skills by path; leave it off when the host serves load_skill, which takes the name",
        },
        { term: '--strict', text: 'apply the agentskills.io rules strictly' },
        ...ROOT_FLAGS_HELP,
        { term: '-h, --help', text: 'show this help' },
      ],
    },
    "Exit status: 0; 1 when a root cannot be searched (missing, not a folder, unreadable: named on stderr, the block holds the other roots' skills) or there is no root at all; 2 on a usage error.",
  ],
}

/** What was cut to fit, on stderr: the block itself says it to the model. */
function reportCut(out: RenderedAvailableSkills, io: CliIo): void {
  const cut = out.namesOnly + out.notShown
  if (out.budgetChars === undefined || (out.shortened === 0 && cut === 0)) return
  io.stderr(
    `skillhost prompt: to fit ${plural(out.budgetChars, 'character')}, shortened ${plural(out.shortened, 'description')}, named ${out.namesOnly} without a description and left out ${out.notShown} of ${plural(out.total, 'skill')}; the block is about ${plural(out.estimatedTokens, 'token')}${cut > 0 ? '; skillhost list shows them all' : ''}.\n`,
  )
}

/** `skillhost prompt`: the `<available_skills>` block for the given roots. */
export const promptCommand: CliCommand = {
  name: 'prompt',
  help: HELP,
  async run(argv, io) {
    const args = parseArgs(argv, {
      booleans: ['strict', 'locations', ...ROOT_FLAGS.booleans],
      strings: ['window', 'share', 'max-tokens', ...ROOT_FLAGS.strings],
      lists: ['pin', 'hide', ...ROOT_FLAGS.lists],
    })
    const found = cliRoots(args)
    const budget = parseCatalogBudgetFlags(args.strings, {
      window: 'window',
      share: 'share',
      maxTokens: 'max-tokens',
    })
    const patterns = {
      ...(args.lists.pin && { pin: args.lists.pin }),
      ...(args.lists.hide && { hide: args.lists.hide }),
    }
    try {
      // The library's one pattern rule, asked before discovery so a bad pattern is a usage error.
      renderAvailableSkills([], patterns)
    } catch (err) {
      throw new UsageError(`--${(err as Error).message}`)
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
    const locations = args.booleans.locations === true
    const entries = catalog.rows
      // disable-model-invocation: the block is the model's catalog, so host-only skills stay out.
      .filter((r) => r.status === 'active' && r.skill?.disableModelInvocation !== true)
      .map((r) => ({
        id: r.id,
        name: r.name,
        description: r.description,
        ...(locations && { location: r.location }),
      }))
    const out = renderAvailableSkills(entries, { ...budget, ...patterns })
    io.stdout(`${out.text}\n`)
    reportCut(out, io)
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
