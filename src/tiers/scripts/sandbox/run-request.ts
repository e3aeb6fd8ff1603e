import { SkillHostError } from '../../../common/errors.js'
import { isPathInside, normalizeAbsolutePath } from '../policy/policy.js'
import type { ResolvedSandboxLimits, SandboxLimits, SandboxRunRequest } from './types.js'

/**
 * The limits used when neither the handle options nor the request set one.
 * No address-space limit: `memoryBytes` bounds memory (see `SandboxLimits`).
 */
export const DEFAULT_SANDBOX_LIMITS = {
  memoryBytes: 1024 * 1024 * 1024,
  fileSizeBytes: 64 * 1024 * 1024,
  openFiles: 256,
  processes: 64,
  writableBytes: 128 * 1024 * 1024,
} as const

/**
 * The `E_SANDBOX_UNAVAILABLE` error, with a model-safe reason saying what is
 * missing; `detail` (bwrap's own words, which name host paths) goes only to
 * the person's voice.
 */
export function unavailable(reason: string, cause?: unknown, detail?: string): SkillHostError {
  const message = `The bubblewrap sandbox cannot run here: ${reason}`
  return new SkillHostError('E_SANDBOX_UNAVAILABLE', message, {
    cause,
    ...(detail ? { person: `${message} bwrap said: ${detail}` } : {}),
  })
}

function positiveInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1
    ? Math.min(Math.floor(value), Number.MAX_SAFE_INTEGER)
    : fallback
}

/**
 * The effective limits of one run: the request's, else the handle's, else the
 * defaults; CPU seconds default to the wall-clock deadline plus one, since a
 * busy loop cannot outlast the deadline anyway. Always positive integers (they
 * are written into the sandbox's shell as digits). `addressSpaceBytes` stays
 * unset unless the request or the handle sets it.
 */
export function resolveLimits(
  request: SandboxLimits | undefined,
  handle: SandboxLimits,
  timeoutMs: number,
): ResolvedSandboxLimits {
  const pick = (key: keyof SandboxLimits, fallback: number) =>
    positiveInt(request?.[key], positiveInt(handle[key], fallback))
  const addressSpace = pick('addressSpaceBytes', 0)
  return {
    memoryBytes: pick('memoryBytes', DEFAULT_SANDBOX_LIMITS.memoryBytes),
    cpuSeconds: pick('cpuSeconds', Math.ceil(timeoutMs / 1000) + 1),
    fileSizeBytes: pick('fileSizeBytes', DEFAULT_SANDBOX_LIMITS.fileSizeBytes),
    openFiles: pick('openFiles', DEFAULT_SANDBOX_LIMITS.openFiles),
    processes: pick('processes', DEFAULT_SANDBOX_LIMITS.processes),
    writableBytes: pick('writableBytes', DEFAULT_SANDBOX_LIMITS.writableBytes),
    ...(addressSpace > 0 ? { addressSpaceBytes: addressSpace } : {}),
  }
}

const KIB = 1024

/**
 * The bash `ulimit` command that applies `limits` to the sandbox's shell and
 * so to everything it execs: RLIMIT_DATA, CPU, FSIZE, NOFILE, NPROC, and AS
 * when set. Without -H/-S bash sets the soft and the hard limit, so the
 * command cannot raise them again. bash counts -d, -f and -v in KiB (outside
 * POSIX mode, which `bash -c` is not in); byte limits are rounded down to
 * whole KiB, at least 1. Only digits are interpolated.
 */
export function ulimitCommand(limits: ResolvedSandboxLimits): string {
  const kib = (bytes: number) => String(Math.max(1, Math.floor(bytes / KIB)))
  const words = [
    'ulimit',
    '-d',
    kib(limits.memoryBytes),
    '-t',
    String(Math.floor(limits.cpuSeconds)),
    '-f',
    kib(limits.fileSizeBytes),
    '-n',
    String(Math.floor(limits.openFiles)),
    '-u',
    String(Math.floor(limits.processes)),
  ]
  if (limits.addressSpaceBytes !== undefined) words.push('-v', kib(limits.addressSpaceBytes))
  for (const word of words.slice(1)) {
    if (!/^(-[a-z]|[0-9]+)$/.test(word)) {
      throw new SkillHostError('E_INTERNAL', `Invalid sandbox limit '${word}'.`)
    }
  }
  return words.join(' ')
}

/**
 * Throws unless a request is runnable by the bubblewrap handle: absolute
 * argv[0] and cwd, no NUL in argv or env, valid env names, no network domains
 * (bwrap has no proxy, so network is all or nothing — and never all), and
 * the fd closer's bash readable under the policy, since it applies the limits
 * and closes inherited fds inside.
 */
export function validateRequest(request: SandboxRunRequest, fdCloserShell: string): void {
  const invalid = (why: string) =>
    new SkillHostError('E_INTERNAL', `Invalid sandbox request: ${why}`)
  if (
    !Array.isArray(request.argv) ||
    request.argv.length === 0 ||
    !request.argv[0]?.startsWith('/')
  ) {
    throw invalid('argv[0] must be an absolute path inside the sandbox.')
  }
  if (request.argv.some((a) => typeof a !== 'string' || a.includes('\0')))
    throw invalid('argv holds a NUL or non-string.')
  if (!request.cwd.startsWith('/')) throw invalid('cwd must be absolute.')
  for (const l of request.symlinks ?? []) {
    if (
      !l.path.startsWith('/') ||
      !l.target.startsWith('/') ||
      `${l.path}${l.target}`.includes('\0')
    )
      throw invalid('a symlink must name absolute sandbox paths.')
  }
  if (
    request.scratch !== undefined &&
    !request.policy.filesystem.allowWrite.some(
      (w) => normalizeAbsolutePath(w) === normalizeAbsolutePath(request.scratch as string),
    )
  ) {
    throw invalid('scratch must be one of the policy’s allowWrite entries.')
  }
  for (const [key, value] of Object.entries(request.env)) {
    if (
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ||
      typeof value !== 'string' ||
      value.includes('\0')
    ) {
      throw invalid(`environment entry '${key}' is not a valid name/value.`)
    }
  }
  if (request.policy.network.allowedDomains.length > 0) {
    throw unavailable(
      'the bubblewrap handle cannot grant network access; allowedDomains must be empty.',
    )
  }
  if (!request.policy.filesystem.allowRead.some((r) => isPathInside(fdCloserShell, r))) {
    throw unavailable(
      'bash, which applies the limits and closes inherited file descriptors inside the sandbox, is not readable under the policy; add its directory (e.g. /usr) to interpreterReadPaths.',
    )
  }
}
