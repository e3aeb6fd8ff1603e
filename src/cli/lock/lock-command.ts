import { rename, rm, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { escapeLine } from '../../common/index.js'
import { FileSystemSkillSource, type SkillProblem } from '../../index.js'
import { formatSkillLock, lockSkills } from '../../sources/index.js'
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
import { isNotSearched, notSearchedLines } from '../shared/not-searched.js'
import { OVERLAYS_HELP, overlayDirs } from '../shared/overlay-dirs.js'
import { parseArgs, UsageError } from '../shared/parse-args.js'
import { plural } from '../shared/plural.js'
import { UNUSABLE_ROOT_STATUS, usableRoots } from '../shared/usable-roots.js'
import { checkLock } from './lock-check.js'
import { lockSourceLabel } from './lock-source-label.js'

/** Where `skillhost lock` writes unless `--out` says otherwise. */
export const DEFAULT_LOCKFILE = 'skills.lock.json'

const HELP: HelpSpec = {
  usage: [
    'skillhost lock [--out FILE] [--verify | --frozen] [--overlays DIR] [--root DIR] [--no-default-roots] [--max-depth N] [root...]',
  ],
  blocks: [
    `Pin the skills the roots serve: write a lockfile (default ${DEFAULT_LOCKFILE} in the working directory) mapping each skill id to a digest of its content — every file's path and bytes, never an mtime —, every file's sha256: digest and size (the MCP Skills Extension's form) and where it was found. Give it to skillhost serve --locked FILE (or FileSystemSkillSource({ lock })): only pinned skills are served, and one that changed since refuses to load until it is pinned again. The skills pinned are exactly those serve would serve from the same roots: the earliest copy of an id wins; invalid, shadowed and unreadable skills are listed and not pinned. A deployer's overlay sidecar is not part of a digest (docs/pinning.md says why).`,
    DEFAULT_ROOTS_HELP,
    {
      title: 'Options:',
      items: [
        { term: '--out FILE', text: 'write the lockfile to FILE (replaced whole, atomically)' },
        {
          term: '--verify',
          text: 'write nothing: compare FILE with what the roots serve and name every skill added, removed or changed',
        },
        {
          term: '--frozen',
          text: 'write nothing: succeed only when FILE is already exactly what lock would write',
        },
        OVERLAYS_HELP,
        ...ROOT_FLAGS_HELP,
        { term: '-h, --help', text: 'show this help' },
      ],
    },
    'Exit status: 0 when the lockfile was written (--verify: matches; --frozen: is up to date); 1 on drift under --verify or --frozen, or a lockfile they cannot read; 1 when a root cannot be searched (missing, not a folder, unreadable: named on stderr; the skills of the others are pinned), there is no root, or no skill was found (nothing is written then); 2 on a usage error.',
  ],
}

/** A host path for display, relative to the working directory, on one line. */
const shown = (path: string): string => escapeLine(relative(process.cwd(), path) || '.')

function printProblems(problems: readonly SkillProblem[], io: CliIo): void {
  const skipped = problems.filter((p) => p.severity === 'error')
  // Folders, not problems: one folder may have several.
  const folders = new Set(skipped.map((p) => p.hostPath ?? p.location)).size
  if (skipped.length > 0) io.stdout(`\nNot pinned (${plural(folders, 'folder')}):\n`)
  for (const p of skipped)
    io.stdout(`  ${shown(p.hostPath ?? p.location)}: ${p.code}: ${escapeLine(p.message)}\n`)
  for (const p of problems) {
    if (
      p.severity === 'warning' &&
      !isNotSearched(p) &&
      (p.id === undefined || p.code === 'E_SKILL_SHADOWED')
    )
      io.stdout(`warning ${shown(p.hostPath ?? p.location)}: ${escapeLine(p.message)}\n`)
  }
  for (const line of notSearchedLines(problems, shown)) io.stdout(`${line}\n`)
}

/** `skillhost lock`: write a lockfile pinning every skill the roots serve. */
export const lockCommand: CliCommand = {
  name: 'lock',
  help: HELP,
  async run(argv, io) {
    const args = parseArgs(argv, {
      booleans: ['verify', 'frozen', ...ROOT_FLAGS.booleans],
      strings: ['out', ...ROOT_FLAGS.strings],
      lists: ['overlays', ...ROOT_FLAGS.lists],
    })
    if (args.booleans.verify && args.booleans.frozen)
      throw new UsageError('--verify and --frozen are two ways to check; give one')
    const mode = args.booleans.verify ? 'verify' : args.booleans.frozen ? 'frozen' : 'write'
    const found = cliRoots(args)
    requireRoots(found)
    const usable = usableRoots(found.roots, io, 'lock')
    // Each unusable root was named; with none left there is nothing to pin or check.
    if (usable.usable.length === 0) return UNUSABLE_ROOT_STATUS
    const out = resolve(args.strings.out ?? DEFAULT_LOCKFILE)
    // The same source serve builds from these flags, so the same skills win.
    const source = new FileSystemSkillSource({
      roots: [...usable.usable],
      overlays: overlayDirs(args.lists.overlays),
      ...(found.maxDepth !== undefined && { limits: { maxDepth: found.maxDepth } }),
    })
    const problems: SkillProblem[] = []
    const progress = discoveryProgress(io, 'skillhost lock')
    const lock = await lockSkills(source, {
      sourceLabel: (folder) => lockSourceLabel(folder, dirname(out)),
      report: (p) => problems.push(p),
      onProgress: progress.walk(),
    })
    progress.done()
    if (found.defaults.length > 0) io.stdout(`roots: ${usable.usable.map(shown).join(', ')}\n`)
    if (mode !== 'write') {
      const status = await checkLock(out, shown(out), lock, mode, io)
      return status !== 0 ? status : usable.unusable.length > 0 ? UNUSABLE_ROOT_STATUS : 0
    }
    if (lock.skills.size === 0) {
      printProblems(problems, io)
      throw new Error(`no skill found to pin; ${shown(out)} was not written.`)
    }
    // Written beside the target and renamed over it: a reader never sees half a lockfile.
    const temporary = `${out}.${process.pid}.tmp`
    // 'wx': never through a file or symlink already at the temporary path.
    await writeFile(temporary, formatSkillLock(lock), { flag: 'wx' })
    try {
      await rename(temporary, out)
    } catch (err) {
      await rm(temporary, { force: true })
      throw err
    }
    io.stdout(`pinned ${plural(lock.skills.size, 'skill')} to ${shown(out)}\n`)
    printProblems(problems, io)
    return usable.unusable.length > 0 ? UNUSABLE_ROOT_STATUS : 0
  },
}
