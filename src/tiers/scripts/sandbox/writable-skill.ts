import { existsSync } from 'node:fs'

/**
 * Where the pinned skill copy is bound read-only when the call's `/skill` is
 * its writable copy (`SandboxRunRequest.writableSkill`): the bytes the call
 * started from, which no call can change.
 */
export const PINNED_SKILL_MOUNT = '/opt/skillhost/skill'

/** Where `cp` is looked for, in order; a host without one keeps `/skill` read-only. */
export const COPY_PROGRAMS: readonly string[] = ['/usr/bin/cp', '/bin/cp']

/** tmpfs counts whole pages: a file of 1 byte takes 4 KiB of the cap. */
const PAGE = 4096

/** The first of `COPY_PROGRAMS` on this host, or undefined. */
export function copyProgram(): string | undefined {
  return COPY_PROGRAMS.find((p) => existsSync(p))
}

/**
 * The size of the call's writable `/skill` tmpfs: the copy's files, each
 * rounded up to whole pages as tmpfs counts them, plus `writableBytes`, so
 * a skill of any size starts, and grows by at most `writableBytes` in the call.
 */
export function writableSkillSize(fileBytes: readonly number[], writableBytes: number): number {
  let total = writableBytes
  for (const b of fileBytes) total += Math.ceil(b / PAGE) * PAGE
  return total
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * The bwrap arguments that show the pinned copy at `host` writable at
 * `sandbox` for one call: bound read-only at `PINNED_SKILL_MOUNT`, and a
 * fresh tmpfs of `size` bytes at `sandbox`, which `copySkillCommand` fills
 * before the script starts.
 */
export function writableSkillArgs(host: string, sandbox: string, size: number): string[] {
  return ['--ro-bind', host, PINNED_SKILL_MOUNT, '--size', String(size), '--tmpfs', sandbox]
}

/**
 * The shell command the fd closer runs first (see `closeInheritedFdsScript`):
 * copies the pinned copy into the writable `/skill` with its modes and times.
 * Paths are host-chosen (the translator's mount), quoted all the same.
 */
export function copySkillCommand(cp: string, sandbox: string): string {
  return `${shellQuote(cp)} -R --preserve=mode,timestamps -- ${shellQuote(`${PINNED_SKILL_MOUNT}/.`)} ${shellQuote(`${sandbox}/`)}`
}
