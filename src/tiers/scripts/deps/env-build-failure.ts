import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { escapeLine } from '../../../common/escape-text.js'
import { INSTALLER_STEP } from './pip-installer.js'
import type { PackageIndex } from './provision-env.js'
import type { Requirement } from './requirement.js'

/** What a failed build step left: the command that ran and what it printed (execFile's error). */
export interface StepFailure {
  readonly cmd?: string
  readonly code?: number | string
  readonly killed?: boolean
  readonly stdout?: string
  readonly stderr?: string
}

/** A package name as pip prints it at the start of a requirement: always plain, never a path. */
const PACKAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}/

/**
 * Where pip looked, in a person's words: the wheel folder, the index URL
 * without its credentials, or pip's own configuration.
 */
export function indexPlace(index: PackageIndex | undefined): string {
  if (index === undefined) return "pip's configured index"
  if (typeof index !== 'string') return `the wheel folder ${escapeLine(index.findLinks)}`
  try {
    const url = new URL(index)
    url.username = ''
    url.password = ''
    return `the index ${url.href}`
  } catch {
    return 'the index given'
  }
}

/**
 * One line saying why a build failed, from pip's output: the package pip
 * found no wheel of ("No matching distribution found for X", "Could not find
 * a version that satisfies the requirement X") and where it looked, whether
 * the index could be reached at all, else pip's last `ERROR:` line. Never
 * pip's retries, never more than one line.
 */
export function buildFailureCause(failure: StepFailure, where: string): string {
  const output = `${failure.stderr ?? ''}\n${failure.stdout ?? ''}`
  const missing =
    /No matching distribution found for (\S+)/.exec(output)?.[1] ??
    /Could not find a version that satisfies the requirement (\S+)/.exec(output)?.[1]
  const name = missing === undefined ? undefined : PACKAGE_NAME.exec(missing)?.[0]
  if (name !== undefined) {
    const unreachable = /Retrying \(Retry\(|NewConnectionError|Max retries exceeded/.test(output)
    return unreachable
      ? `pip could not reach ${where}, so it found no wheel of '${name}'`
      : `pip found no wheel of '${name}' that fits in ${where}`
  }
  if (failure.killed) return 'pip ran past the build deadline and was stopped'
  const lastError = output
    .split('\n')
    .filter((line) => line.startsWith('ERROR:'))
    .pop()
  if (lastError !== undefined)
    return `pip said: ${escapeLine(lastError.slice(6).trim().slice(0, 300))}`
  const status = failure.code === undefined ? '' : ` (status ${String(failure.code)})`
  const step = failure.cmd?.includes(' -m venv ')
    ? 'python -m venv'
    : failure.cmd?.includes(INSTALLER_STEP)
      ? "unpacking the interpreter's bundled pip"
      : 'pip'
  return `${step} failed${status}`
}

/**
 * Writes what a failed build printed, whole, to `logs/<key>.log` in the env
 * cache (a host folder the deployer owns; owner-only, the last failure of a
 * set replaces its previous log, so the folder holds one log per set).
 * Resolves to its path, or undefined when it could not be written: the build's
 * own error matters more than its log.
 */
export async function writeBuildLog(
  cacheDir: string,
  key: string,
  failure: StepFailure,
): Promise<string | undefined> {
  const dir = join(cacheDir, 'logs')
  const path = join(dir, `${key}.log`)
  const text = [
    `$ ${failure.cmd ?? '(no command)'}`,
    `exit: ${failure.killed ? 'killed at the build deadline' : String(failure.code ?? '?')}`,
    '--- stdout ---',
    failure.stdout ?? '',
    '--- stderr ---',
    failure.stderr ?? '',
  ].join('\n')
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    await writeFile(path, text, { mode: 0o600 })
    return path
  } catch {
    return undefined
  }
}

/**
 * `E_SKILL_ENV_BUILD_FAILED`: the environment for `requirements` could not be
 * built. The message is model-safe (no package, no path, no log); the person
 * text names the set, the one-line cause and where pip's full log is.
 */
export function envBuildFailed(
  requirements: readonly Requirement[],
  cause: string,
  log: string | undefined,
  err: unknown,
): SkillHostError {
  const set = requirements.map((r) => r.text).join(' ')
  const where = log === undefined ? '' : `; pip's full log: ${escapeLine(log)}`
  return new SkillHostError(
    'E_SKILL_ENV_BUILD_FAILED',
    "A script environment could not be built: a package it needs could not be installed. The host operator can see why in the host's log.",
    {
      cause: err,
      person: `the environment for ${escapeLine(set)} could not be built: ${cause}${where}`,
    },
  )
}
