import { SkillHostError } from '../../../common/errors.js'
import { isPathInside, normalizeAbsolutePath } from '../policy/policy.js'
import type { SandboxLimits, SandboxRunRequest } from './types.js'

/** The limits used when neither the handle options nor the request set one. */
export const DEFAULT_SANDBOX_LIMITS = {
  addressSpaceBytes: 1024 * 1024 * 1024,
  fileSizeBytes: 64 * 1024 * 1024,
  openFiles: 256,
  processes: 64,
  writableBytes: 128 * 1024 * 1024,
} as const

/** The `E_SANDBOX_UNAVAILABLE` error, with a reason saying what is missing. */
export function unavailable(reason: string, cause?: unknown): SkillHostError {
  return new SkillHostError(
    'E_SANDBOX_UNAVAILABLE',
    `The bubblewrap sandbox cannot run here: ${reason}`,
    { cause },
  )
}

function positiveInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback
}

/**
 * The effective limits of one run: the request's, else the handle's, else the
 * defaults; CPU seconds default to the wall-clock deadline plus one, since a
 * busy loop cannot outlast the deadline anyway. Always positive integers
 * (prlimit takes no unit suffixes).
 */
export function resolveLimits(
  request: SandboxLimits | undefined,
  handle: SandboxLimits,
  timeoutMs: number,
): Required<SandboxLimits> {
  const pick = (key: keyof SandboxLimits, fallback: number) =>
    positiveInt(request?.[key], positiveInt(handle[key], fallback))
  return {
    addressSpaceBytes: pick('addressSpaceBytes', DEFAULT_SANDBOX_LIMITS.addressSpaceBytes),
    cpuSeconds: pick('cpuSeconds', Math.ceil(timeoutMs / 1000) + 1),
    fileSizeBytes: pick('fileSizeBytes', DEFAULT_SANDBOX_LIMITS.fileSizeBytes),
    openFiles: pick('openFiles', DEFAULT_SANDBOX_LIMITS.openFiles),
    processes: pick('processes', DEFAULT_SANDBOX_LIMITS.processes),
    writableBytes: pick('writableBytes', DEFAULT_SANDBOX_LIMITS.writableBytes),
  }
}

/**
 * Throws unless a request is runnable by the bubblewrap handle: absolute
 * argv[0] and cwd, no NUL in argv or env, valid env names, no network domains
 * (bwrap has no proxy, so network is all or nothing — and never all), and
 * prlimit readable under the policy, since it applies the limits inside.
 */
export function validateRequest(
  request: SandboxRunRequest,
  prlimitPath: string,
  fdCloserShell: string,
): void {
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
  if (!request.policy.filesystem.allowRead.some((r) => isPathInside(prlimitPath, r))) {
    throw unavailable(
      'prlimit, which applies the resource limits inside the sandbox, is not readable under the policy; add its directory (e.g. /usr) to interpreterReadPaths.',
    )
  }
  if (!request.policy.filesystem.allowRead.some((r) => isPathInside(fdCloserShell, r))) {
    throw unavailable(
      'bash, which closes inherited file descriptors inside the sandbox, is not readable under the policy; add its directory (e.g. /usr) to interpreterReadPaths.',
    )
  }
}
