import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

/** Options for `defaultSkillRoots`. */
export interface DefaultSkillRootsOptions {
  /** Where the project search starts; defaults to `process.cwd()`. */
  readonly cwd?: string
  /** The user's home; defaults to `os.homedir()`. */
  readonly home?: string
  /**
   * Keep the folders that do not exist too: every place looked in, in the
   * same order (to tell a user where skills were looked for).
   */
  readonly includeMissing?: boolean
}

/** The skill folders of one project or user folder, agentskills.io's first. */
const CONVENTIONAL = [join('.agents', 'skills'), join('.claude', 'skills')] as const

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** `cwd` and its ancestors up to the nearest one holding `.git`; just `cwd` when none does. */
function projectFolders(cwd: string): string[] {
  const chain: string[] = []
  for (let dir = cwd; ; dir = dirname(dir)) {
    chain.push(dir)
    // A file too: a git worktree or submodule has a `.git` file.
    if (existsSync(join(dir, '.git'))) return chain
    if (dirname(dir) === dir) return [cwd]
  }
}

/**
 * The conventional skill roots (agentskills.io and Claude Code), in
 * precedence order, keeping only folders that exist (all of them with
 * `includeMissing`): the project's `.agents/skills` and `.claude/skills` in
 * `cwd`, then in each parent up to the repository root (the nearest folder
 * holding `.git`; only `cwd` when there is none), then the user's
 * `~/.agents/skills` and `~/.claude/skills`.
 * Project wins over user and a nearer folder over a farther one: given to a
 * `FileSystemSkillSource` in this order, an earlier root wins an id
 * collision and later copies are shadowed. No path appears twice.
 */
export function defaultSkillRoots(options: DefaultSkillRootsOptions = {}): string[] {
  const candidates = defaultSkillRootCandidates(options)
  return options.includeMissing === true ? candidates : candidates.filter(isDirectory)
}

/** Every place `defaultSkillRoots` looks, in the same order, whether or not it exists. */
function defaultSkillRootCandidates(options: DefaultSkillRootsOptions = {}): string[] {
  const cwd = resolve(options.cwd ?? process.cwd())
  const home = resolve(options.home ?? homedir())
  const roots: string[] = []
  for (const base of [...projectFolders(cwd), home]) {
    for (const rel of CONVENTIONAL) {
      const path = join(base, rel)
      if (!roots.includes(path)) roots.push(path)
    }
  }
  return roots
}
