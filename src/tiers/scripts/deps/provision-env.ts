import { createHash } from 'node:crypto'
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { activeMetrics } from '../../../common/active-metrics.js'
import { noteCallProgress } from '../../../common/call-progress.js'
import { SkillHostError } from '../../../common/errors.js'
import { traced } from '../../../common/tracing.js'
import type { PythonLayout } from '../policy/user-python.js'
import { BUILD_TIMEOUT_MS, cacheFailed, readyOrLocked, releaseBuildLock } from './build-lock.js'
import {
  buildFailureCause,
  envBuildFailed,
  indexPlace,
  type StepFailure,
  writeBuildLog,
} from './env-build-failure.js'
import type { Requirement } from './requirement.js'
import { type RunOptions, runFile } from './run-file.js'
import { seededVenv } from './seeded-venv.js'

/** Where environments come from: the deployer's package index or a folder of wheels. */
export type PackageIndex = string | { readonly findLinks: string }

/** The deployer's permission to build script environments, outside the sandbox. */
export interface ProvisionOptions {
  /** Where environments are kept, one folder per requirement set. */
  readonly cacheDir: string
  /** `--index-url URL`, or `--no-index --find-links DIR`; default: pip's own configuration. */
  readonly index?: PackageIndex
  /**
   * Pinned resolutions from a lockfile, by `requirementSetKey`: a set found
   * here installs exactly these packages with `--require-hashes`.
   */
  readonly pins?: ReadonlyMap<string, readonly PinnedPackage[]>
  /**
   * A locked deployment (`run --locked`, `serve --locked` with
   * `--provision`): build only from `pins`, never resolve afresh. A
   * requirement set `pins` lacks, or a pinned package without a sha256, is
   * `E_SKILL_NOT_PINNED` (`notPinnedEnv`) before anything is installed.
   */
  readonly locked?: boolean
  /**
   * Told when an environment starts building and when it is built or its
   * build fails: a build takes seconds to minutes, and a server's operator
   * should see why a call waits. Not told when the environment is cached.
   */
  readonly onBuild?: (event: ProvisionBuild) => void
}

/** One step of an environment's build, as `ProvisionOptions.onBuild` hears it. */
export interface ProvisionBuild {
  readonly phase: 'started' | 'built' | 'failed'
  /** The requirement texts being installed (validated: names, versions, extras, markers). */
  readonly requirements: readonly string[]
  /** Time since the build started, once it ended. */
  readonly ms?: number
  /**
   * A failed build's one-line cause and the path of pip's full log (person
   * text: host paths, package names), for the operator's log; a model never
   * sees either.
   */
  readonly failure?: { readonly cause: string; readonly log?: string }
}

/** How a lockfile names a requirement set: its normalized requirement texts, sorted, one a line. */
export function requirementSetKey(requirements: readonly Requirement[]): string {
  return requirements
    .map((r) => r.text)
    .sort()
    .join('\n')
}

/** One package pip installed into an environment, as its report says. */
export interface PinnedPackage {
  readonly name: string
  readonly version: string
  /** The sha256 of the wheel or sdist it came from, when pip reported one. */
  readonly sha256?: string
}

/** A built environment: its venv, the shim that shows it at a neutral path, and what was installed. */
export interface ProvisionedEnv {
  readonly key: string
  readonly venv: string
  readonly shim: string
  readonly packages: readonly PinnedPackage[]
}

/** The cache key of a requirement set: sha256 of the interpreter (version and binary) and the sorted set. */
export function envKey(
  layout: PythonLayout,
  requirements: readonly Requirement[],
  pins?: readonly PinnedPackage[],
): string {
  const set = requirements.map((r) => r.text).sort()
  return createHash('sha256')
    .update(JSON.stringify([layout.version, layout.realExecutable, set, pins ?? null]))
    .digest('hex')
    .slice(0, 32)
}

/** Why a locked deployment refuses to build an environment (`data.reason` of `E_SKILL_NOT_PINNED`). */
export type EnvNotPinnedReason =
  | 'environment-not-pinned'
  | 'environment-unhashed'
  | 'environment-mismatch'

const NOT_PINNED_WHY: Readonly<Record<EnvNotPinnedReason, string>> = {
  'environment-not-pinned': 'is not pinned in the lockfile in force',
  'environment-unhashed': 'is pinned without the sha256 of every package',
  'environment-mismatch':
    'is pinned to archives whose sha256 the package index does not serve (a pin or a package changed)',
}

/**
 * The refusal of a script environment that is not exactly as a lockfile
 * pins it. The message is model-safe (no requirement text, no path); the
 * person text names the requirement set and what to do.
 */
export function notPinnedEnv(
  reason: EnvNotPinnedReason,
  requirements: readonly Requirement[],
  cause?: unknown,
): SkillHostError {
  const set = requirements.map((r) => r.text).sort()
  const fix =
    reason === 'environment-mismatch'
      ? 'check the lockfile and the index, then pin it again with skillhost env --lock'
      : 'pin it with skillhost env --lock'
  return new SkillHostError(
    'E_SKILL_NOT_PINNED',
    `This script's environment (${set.length} requirement${set.length === 1 ? '' : 's'}) ${NOT_PINNED_WHY[reason]}, so it is not built; the deployer must ${fix}.`,
    {
      data: { reason },
      cause,
      person: `the environment for ${set.join(' ')} ${NOT_PINNED_WHY[reason]}; ${fix}`,
    },
  )
}

/**
 * The error a failed build throws, and what the operator's log hears: a
 * pinned archive pip refused is `E_SKILL_NOT_PINNED`; a failed step (venv,
 * pip) is `E_SKILL_ENV_BUILD_FAILED` with a one-line cause and its output
 * kept whole in the env cache's logs; anything else (the shim, the cache) is
 * `E_SKILL_WORKSPACE_FAILED`.
 */
async function buildRefusal(
  err: unknown,
  requirements: readonly Requirement[],
  pins: readonly PinnedPackage[] | undefined,
  options: ProvisionOptions,
  key: string,
): Promise<{ error: SkillHostError; failure?: ProvisionBuild['failure'] }> {
  const step = err as StepFailure | undefined
  if (typeof step?.cmd !== 'string' || typeof step.stderr !== 'string')
    return {
      error: cacheFailed(
        `could not keep the environment in ${options.cacheDir}: ${String(err)}`,
        err,
      ),
    }
  // pip's words for an archive that is not the pinned one (--require-hashes).
  if (pins?.length && step.stderr.includes('DO NOT MATCH THE HASHES'))
    return { error: notPinnedEnv('environment-mismatch', requirements, err) }
  const cause = buildFailureCause(step, indexPlace(options.index))
  const log = await writeBuildLog(options.cacheDir, key, step)
  return {
    error: envBuildFailed(requirements, cause, log, err),
    failure: { cause, ...(log === undefined ? {} : { log }) },
  }
}

async function readEnv(dir: string, key: string): Promise<ProvisionedEnv | undefined> {
  try {
    const done = JSON.parse(await readFile(join(dir, 'env.json'), 'utf8')) as {
      packages: PinnedPackage[]
    }
    return { key, venv: join(dir, 'venv'), shim: join(dir, 'shim'), packages: done.packages }
  } catch {
    return undefined
  }
}

function pinsFromReport(report: unknown): PinnedPackage[] {
  const install = (report as { install?: unknown[] })?.install ?? []
  return install.flatMap((entry) => {
    const e = entry as {
      metadata?: { name?: string; version?: string }
      download_info?: { archive_info?: { hashes?: { sha256?: string }; hash?: string } }
    }
    const name = e.metadata?.name
    const version = e.metadata?.version
    if (typeof name !== 'string' || typeof version !== 'string') return []
    const archive = e.download_info?.archive_info
    const sha256 = archive?.hashes?.sha256 ?? archive?.hash?.replace(/^sha256[=:]/, '')
    return [{ name, version, ...(typeof sha256 === 'string' ? { sha256 } : {}) }]
  })
}

/**
 * A seeded venv at `tmp/venv` (`seededVenv`) with `requirements` (or
 * exactly `pins`, by hash when every pin has one) installed from wheels
 * only; the packages pip reports for that run.
 */
async function pipInstall(
  python: PythonLayout,
  tmp: string,
  requirements: readonly Requirement[],
  options: ProvisionOptions,
  pins: readonly PinnedPackage[] | undefined,
  signal: AbortSignal | undefined,
): Promise<PinnedPackage[]> {
  const { index } = options
  const opts: RunOptions = {
    ...{ timeout: BUILD_TIMEOUT_MS, env: { LANG: 'C.UTF-8' }, maxBuffer: 16 << 20 },
    ...(signal && { signal }),
  }
  const { venvPython, pip } = await seededVenv(python, tmp, options.cacheDir, opts)
  const indexArgs =
    index === undefined
      ? []
      : typeof index === 'string'
        ? ['--index-url', index]
        : ['--no-index', '--find-links', index.findLinks]
  const reqFile = join(tmp, 'requirements.txt')
  const lines = pins?.length
    ? pins.map((p) => `${p.name}==${p.version}${p.sha256 ? ` --hash=sha256:${p.sha256}` : ''}`)
    : requirements.map((r) => r.text)
  await writeFile(reqFile, `${lines.join('\n')}\n`)
  const report = join(tmp, 'report.json')
  await runFile(
    venvPython,
    [
      ...[...pip, 'install', '--no-input', '--disable-pip-version-check'],
      ...['--no-cache-dir', '--report', report, ...indexArgs],
      // Wheels only: building an sdist runs its setup code on the host, with the host's
      // authority, for a package a skill named. A deployer's wheelhouse covers the rest.
      ...['--only-binary', ':all:'],
      ...(pins?.length ? ['--no-deps'] : []),
      ...(pins?.length && pins.every((p) => p.sha256) ? ['--require-hashes'] : []),
      ...['-r', reqFile],
    ],
    opts,
  )
  return pinsFromReport(JSON.parse(await readFile(report, 'utf8')))
}

/**
 * The environment for `requirements` under `python`, built once: a venv
 * seeded as `python -m venv` seeds it (`seededVenv`: the cache's installer,
 * itself built once per interpreter), then `pip install --no-input
 * --disable-pip-version-check` with the deployer's index and `--report`,
 * in a temp folder of the cache renamed into
 * place whole, under a lock folder so concurrent builders wait for one
 * another. `writeShim(dir)` adds the neutral-path shim before the rename.
 * A set `options.pins` holds (from a lockfile) installs exactly those
 * versions with `--require-hashes`; an archive whose hash differs is
 * `E_SKILL_NOT_PINNED` (`environment-mismatch`), and with `options.locked`
 * a set without pins is refused before anything runs. Runs on the host,
 * never in the sandbox, and gives the sandbox no network. A venv, pip or
 * installer step that fails is `E_SKILL_ENV_BUILD_FAILED` (`buildRefusal`: a one-line
 * cause, pip's whole output in `<cacheDir>/logs/<key>.log`); the cache
 * itself failing is `E_SKILL_WORKSPACE_FAILED`. `signal` (a background
 * build's owner going away) stops waiting for another builder and kills a
 * running venv, pip or installer step: its temp folders is removed, nothing is renamed into
 * place, the lock is released, and the promise rejects with the abort.
 */
export async function provisionEnv(
  python: PythonLayout,
  requirements: readonly Requirement[],
  options: ProvisionOptions,
  writeShim: (dir: string) => Promise<void>,
  signal?: AbortSignal,
): Promise<ProvisionedEnv> {
  const pins = options.pins?.get(requirementSetKey(requirements))
  if (options.locked && !pins?.length) throw notPinnedEnv('environment-not-pinned', requirements)
  if (options.locked && pins?.some((p) => p.sha256 === undefined))
    throw notPinnedEnv('environment-unhashed', requirements)
  const key = envKey(python, requirements, pins)
  const dir = join(options.cacheDir, key)
  await mkdir(options.cacheDir, { recursive: true, mode: 0o755 })
  const lock = `${dir}.lock`
  const ready = await readyOrLocked(() => readEnv(dir, key), lock, signal)
  if (ready !== undefined) return ready
  // One span per build this process runs (`skillhost.provision`), a child of the call that waits on it.
  return traced('skillhost.provision', { count: requirements.length }, () =>
    buildEnv(python, requirements, options, writeShim, { key, dir, lock, pins, signal }),
  )
}

/** The build `provisionEnv` runs once it holds the lock at `at.lock`; releases it whatever happens. */
async function buildEnv(
  python: PythonLayout,
  requirements: readonly Requirement[],
  options: ProvisionOptions,
  writeShim: (dir: string) => Promise<void>,
  at: {
    key: string
    dir: string
    lock: string
    pins: readonly PinnedPackage[] | undefined
    signal: AbortSignal | undefined
  },
): Promise<ProvisionedEnv> {
  const { key, dir, lock, pins, signal } = at
  const tmp = await mkdtemp(join(options.cacheDir, `.build-${key}-`))
  const started = performance.now()
  const metrics = activeMetrics()
  const tell = (phase: ProvisionBuild['phase'], failure?: ProvisionBuild['failure']) => {
    const ms = phase === 'started' ? undefined : Math.round(performance.now() - started)
    const texts = requirements.map((r) => r.text)
    // The call waiting on the build says so to its client, in fixed words (never the requirements).
    noteCallProgress(phase === 'started' ? 'building a python environment' : undefined)
    if (ms !== undefined) metrics?.provisionBuild(phase === 'built', ms / 1000)
    try {
      const told = { ...(ms === undefined ? {} : { ms }), ...(failure && { failure }) }
      options.onBuild?.({ phase, requirements: texts, ...told })
    } catch {
      // A listener's failure is its own, never the build's.
    }
  }
  tell('started')
  try {
    const packages = await pipInstall(python, tmp, requirements, options, pins, signal)
    await writeShim(join(tmp, 'shim'))
    // Aborted after pip: the half-kept build is dropped, never renamed into place.
    signal?.throwIfAborted()
    await writeFile(
      join(tmp, 'env.json'),
      `${JSON.stringify({ requirements, packages }, null, 2)}\n`,
    )
    await chmod(tmp, 0o755)
    try {
      await rename(tmp, dir)
    } catch (err) {
      // Another builder finished first (a lock judged stale by two): its environment stands.
      const code = (err as NodeJS.ErrnoException).code
      const theirs = code === 'ENOTEMPTY' || code === 'EEXIST' ? await readEnv(dir, key) : undefined
      if (theirs === undefined) throw err
      await rm(tmp, { recursive: true, force: true })
      tell('built')
      return theirs
    }
    tell('built')
    return { key, venv: join(dir, 'venv'), shim: join(dir, 'shim'), packages }
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined)
    if (signal?.aborted) {
      // Released before it is told, so a listener that hears the cancel finds the cache as it was.
      await releaseBuildLock(lock)
      tell('failed', { cause: 'cancelled: its owner went away (skill unloaded, server closed)' })
      throw signal.reason
    }
    const refused = await buildRefusal(err, requirements, pins, options, key)
    tell('failed', refused.failure)
    throw refused.error
  } finally {
    await releaseBuildLock(lock)
  }
}
