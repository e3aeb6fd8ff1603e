import { existsSync, statSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { defaultSkillRoots } from '../../sources/index.js'
import type { HelpItem } from './help-text.js'
import { type ParsedArgs, UsageError } from './parse-args.js'

/** The flags every command that searches roots takes, for `parseArgs`. */
export const ROOT_FLAGS = {
  booleans: ['no-default-roots'],
  strings: ['max-depth'],
  lists: ['root'],
} as const

/** Help items for `ROOT_FLAGS`, for every command's options list. */
export const ROOT_FLAGS_HELP: readonly HelpItem[] = [
  { term: '--root DIR', text: 'also search DIR, before the default roots (repeatable)' },
  { term: '--no-default-roots', text: 'search only the roots given' },
  {
    term: '--max-depth N',
    text: 'search N folder levels below each root (default 6); folders below are reported, never skipped silently',
  },
]

/** Help text saying where the default roots are, for every command's help. */
export const DEFAULT_ROOTS_HELP = `With no root given, the conventional folders that exist are searched, in
this order (an earlier one wins an id collision; later copies are shown as
shadowed): .agents/skills and .claude/skills in the working directory and in
each parent up to the repository root (the nearest folder holding .git), then
~/.agents/skills and ~/.claude/skills, then ./skills. Roots given as
arguments replace these; --root adds one before them.`

/** Which roots a command searches and how deep. */
export interface CliRoots {
  /** Every root, absolute, in precedence order. */
  readonly roots: readonly string[]
  /** The roots the user named (arguments and `--root`), absolute. */
  readonly given: readonly string[]
  /** The default roots in use (empty when dropped or replaced). */
  readonly defaults: readonly string[]
  /** `--no-default-roots` was given. */
  readonly defaultsDropped: boolean
  /** `--max-depth`, when given. */
  readonly maxDepth?: number
}

/** A path given as a root: a `SKILL.md` file stands for its folder. */
export function rootArg(path: string): string {
  const abs = resolve(path)
  if (basename(abs) !== 'SKILL.md') return abs
  try {
    return statSync(abs).isFile() ? dirname(abs) : abs
  } catch {
    return abs
  }
}

/**
 * The CLI's default roots: `defaultSkillRoots` (project, then user), then
 * `./skills` when it exists — kept for the layout `serve` searched before
 * the conventional folders existed, and last so they win over it.
 */
export function cliDefaultRoots(options: { cwd?: string; home?: string } = {}): string[] {
  const roots = defaultSkillRoots(options)
  const local = resolve(options.cwd ?? process.cwd(), 'skills')
  if (!roots.includes(local) && existsSync(local) && statSync(local).isDirectory())
    roots.push(local)
  return roots
}

/**
 * Resolves the roots of a command from its arguments: positional roots
 * replace the defaults; `--root DIR` (repeatable) adds a root before them;
 * `--no-default-roots` drops them; `--max-depth N` is a whole number.
 */
export function cliRoots(
  args: ParsedArgs,
  options: { cwd?: string; home?: string } = {},
): CliRoots {
  const rawDepth = args.strings['max-depth']
  let maxDepth: number | undefined
  if (rawDepth !== undefined) {
    maxDepth = Number(rawDepth)
    if (!/^\d+$/.test(rawDepth) || !Number.isSafeInteger(maxDepth))
      throw new UsageError('--max-depth needs a whole number of folder levels')
  }
  const given = [...args.positionals, ...(args.lists.root ?? [])].map(rootArg)
  const defaultsDropped = args.booleans['no-default-roots'] === true
  const useDefaults = args.positionals.length === 0 && !defaultsDropped
  const defaults = useDefaults ? cliDefaultRoots(options).filter((r) => !given.includes(r)) : []
  return {
    roots: [...given, ...defaults],
    given,
    defaults,
    defaultsDropped,
    ...(maxDepth !== undefined && { maxDepth }),
  }
}

/**
 * Throws an error saying where was searched when there is no root at all:
 * the command exits 1 instead of listing nothing. Roots given that cannot
 * be searched are `usableRoots`' to report.
 */
export function requireRoots(found: CliRoots): void {
  if (found.roots.length === 0 && found.defaultsDropped)
    throw new Error('no skill roots: --no-default-roots drops the defaults; give a root.')
  if (found.roots.length === 0) {
    throw new Error(
      'no skill roots: none of the default folders exist (.agents/skills or .claude/skills up to the repository root, ~/.agents/skills, ~/.claude/skills, ./skills); give a root.',
    )
  }
}
