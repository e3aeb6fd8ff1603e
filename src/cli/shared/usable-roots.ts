import { opendirSync, statSync } from 'node:fs'
import { relative } from 'node:path'
import { escapeLine, SkillHostError } from '../../common/index.js'
import type { CliIo } from './cli-command.js'

/**
 * The exit status of a command that could not use a root it was given
 * (missing, not a folder, unreadable) after doing its work with the others.
 */
export const UNUSABLE_ROOT_STATUS = 1

/** A root that cannot be searched, and why, in words for the person at the terminal. */
export interface UnusableRoot {
  readonly root: string
  readonly reason: string
}

/** The roots split into those a command can search and those it cannot. */
export interface RootCheck {
  readonly usable: readonly string[]
  readonly unusable: readonly UnusableRoot[]
}

/** Why `root` cannot be searched, or undefined when it can. */
function unusableReason(root: string): string | undefined {
  try {
    if (!statSync(root).isDirectory()) return 'is not a folder'
    opendirSync(root).closeSync()
    return undefined
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'does not exist'
    if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)'
    return `cannot be read (${code ?? 'error'})`
  }
}

/**
 * The one rule every command applies to its roots: each root that is
 * missing, not a folder or unreadable is named on stderr in one line
 * (`skillhost <command>: skill root PATH does not exist`), and the command
 * goes on with the others; it then ends with `UNUSABLE_ROOT_STATUS`. With
 * `json` nothing is written: the command puts `unusable` in its JSON
 * document on stdout, where a program reading it looks (stderr stays empty).
 */
export function usableRoots(
  roots: readonly string[],
  io: CliIo,
  command: string,
  json = false,
): RootCheck {
  const usable: string[] = []
  const unusable: UnusableRoot[] = []
  for (const root of roots) {
    const reason = unusableReason(root)
    if (reason === undefined) usable.push(root)
    else {
      unusable.push({ root, reason })
      if (json) continue
      io.stderr(`skillhost ${command}: skill root ${shownRoot(root)} ${reason}\n`)
    }
  }
  return { usable, unusable }
}

/**
 * The error a command that needs every root it was given (`run`, `lock`)
 * reports when one cannot be searched: `E_CLI_ROOT_UNUSABLE`, naming the
 * root as the person typed it.
 */
export function unusableRootError(unusable: UnusableRoot): SkillHostError {
  return new SkillHostError(
    'E_CLI_ROOT_UNUSABLE',
    `skill root ${shownRoot(unusable.root)} ${unusable.reason}`,
  )
}

/** A root as the person typed it: relative to the working directory when inside it, else whole; escaped. */
function shownRoot(root: string): string {
  const near = relative(process.cwd(), root) || '.'
  return escapeLine(near.startsWith('..') ? root : near)
}
