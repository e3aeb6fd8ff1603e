import { readFile } from 'node:fs/promises'
import { escapeLine } from '../../common/index.js'
import {
  diffSkillLocks,
  formatSkillLock,
  readSkillLock,
  type SkillLock,
  type SkillLockDrift,
} from '../../sources/index.js'
import type { CliIo } from '../shared/cli-command.js'
import { plural } from '../shared/plural.js'

/** How `skillhost lock` treats an existing lockfile: write it, only compare (`--verify`), or refuse to change it (`--frozen`). */
export type LockMode = 'write' | 'verify' | 'frozen'

/**
 * One skill's drift on one line: `added id`, `removed id`, or `changed id:
 * +new -gone ~edited` (the first eight paths, then how many more).
 */
export function driftSummary(d: SkillLockDrift): string {
  const id = escapeLine(d.id)
  if (d.kind !== 'changed') return `${d.kind} ${id}`
  const parts = [
    ...d.added.map((p) => `+${p}`),
    ...d.removed.map((p) => `-${p}`),
    ...d.changed.map((p) => `~${p}`),
  ]
  const shown = parts.slice(0, 8).map(escapeLine).join(' ')
  const more = parts.length > 8 ? ` and ${parts.length - 8} more` : ''
  return `changed ${id}${parts.length > 0 ? `: ${shown}${more}` : ''}`
}

const driftLine = (d: SkillLockDrift): string => `  ${driftSummary(d)}\n`

/**
 * Compares a fresh lock with the lockfile at `path` and never writes it.
 * `verify`: status 1 when any skill was added, removed or changed (each
 * drift named on stdout), else 0. `frozen`: status 1 unless writing would
 * leave the file byte for byte as it is (so a version-1 file, which would be
 * rewritten as version 2, is refused too). A missing or unreadable lockfile
 * is an error (status 1).
 */
export async function checkLock(
  path: string,
  shownPath: string,
  fresh: SkillLock,
  mode: Exclude<LockMode, 'write'>,
  io: CliIo,
): Promise<number> {
  const pinned = await readSkillLock(path)
  const drift = diffSkillLocks(pinned, fresh)
  if (drift.length > 0) {
    io.stdout(`${shownPath} has drifted (${plural(drift.length, 'skill')}):\n`)
    for (const d of drift) io.stdout(driftLine(d))
  }
  if (mode === 'verify') {
    if (drift.length === 0) io.stdout(`${shownPath} matches what the roots serve\n`)
    return drift.length > 0 ? 1 : 0
  }
  const same = (await readFile(path, 'utf8')) === formatSkillLock(fresh)
  if (same) {
    io.stdout(`${shownPath} is up to date\n`)
    return 0
  }
  if (drift.length === 0)
    io.stdout(`${shownPath} would be rewritten (lockfile version ${pinned.lockfileVersion})\n`)
  io.stdout(`--frozen: ${shownPath} was not written\n`)
  return 1
}
