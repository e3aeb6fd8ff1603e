import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { posix } from 'node:path'
import { isPathInside, normalizeAbsolutePath } from '../policy/policy.js'
import {
  type BwrapArgsInput,
  buildBwrapCommand,
  sandboxCallEnv,
  writableSkillView,
} from './bwrap-args.js'
import { STARTED_FD } from './close-inherited-fds.js'
import { ulimitCommand } from './run-request.js'
import type { HostIdentity } from './sandbox-host-user.js'
import { CONTROL_HOST_PLACEHOLDER, stagePlaceholder, type WarmStart } from './warm-sandbox.js'
import { SUPERVISOR_SCRIPT, WARM_CONTROL_MOUNT, type WarmCallRequest } from './warm-supervisor.js'
import { PINNED_SKILL_MOUNT } from './writable-skill.js'

/** How one call runs warm: the key of the sandbox it may share, how to start one, and the call. */
export interface WarmPlan {
  /**
   * Equal exactly when everything bwrap sets up is equal: the outer argv
   * (every mount of the derived policy, where the translator shows it, the
   * scratch and `/skill` tmpfs sizes, cwd and the base environment), the
   * generated /etc and the host identity (docs/security.md, "Warm sandbox").
   */
  readonly key: string
  readonly start: WarmStart
  readonly call: WarmCallRequest
}

/** What `warmPlan` needs besides the argv input. */
export interface WarmPlanSettings {
  readonly bwrapPath: string
  readonly hostUser: HostIdentity | undefined
  /** The call's read folders its host user cannot reach (`unreachableReads`): bound from the sandbox's stage folders. */
  readonly unreachable?: readonly string[]
}

function firstExisting(paths: readonly string[]): string | undefined {
  return paths.find((p) => existsSync(p))
}

const TOOLS = {
  env: ['/usr/bin/env', '/bin/env'],
  rm: ['/usr/bin/rm', '/bin/rm'],
  chmod: ['/usr/bin/chmod', '/bin/chmod'],
  sleep: ['/usr/bin/sleep', '/bin/sleep'],
  mkfifo: ['/usr/bin/mkfifo', '/bin/mkfifo'],
} as const

/**
 * The warm plan of one call, or undefined when it must run cold: it holds
 * descriptors (`grantedFds`, `readOnlyFds`: per call, so no key names them),
 * its argv[0] holds `=` (`env` would take it for a variable), or the tools
 * the supervisor runs (`env`, `rm`, `chmod`, `sleep`) are not readable under its
 * policy. A read folder its host user cannot reach (`settings.unreachable`)
 * is bound from a stage folder of the sandbox, as a cold call's is from one
 * of its scratch.
 */
export function warmPlan(
  input: Omit<BwrapArgsInput, 'supervisor' | 'statusFd' | 'firstDataFd'>,
  settings: WarmPlanSettings,
): WarmPlan | undefined {
  const { request } = input
  if ((request.grantedFds?.size ?? 0) > 0 || (request.readOnlyFds?.length ?? 0) > 0) return
  if (request.argv.some((a, i) => i === 0 && a.includes('='))) return
  const readable = (p: string) =>
    request.policy.filesystem.allowRead.some((r) => isPathInside(p, r))
  const env = firstExisting(TOOLS.env)
  const rm = firstExisting(TOOLS.rm)
  const chmod = firstExisting(TOOLS.chmod)
  const sleep = firstExisting(TOOLS.sleep)
  const mkfifo = firstExisting(TOOLS.mkfifo)
  // In the supervisor's argument order: RM CHMOD ENV SLEEP.
  const tools = [rm, chmod, env, sleep]
  if (mkfifo === undefined || !tools.every((t) => t !== undefined && readable(t))) return
  const toSandbox = request.toSandboxPath ?? ((p: string) => p)
  const scratch =
    request.scratch === undefined
      ? ''
      : toSandbox(normalizeAbsolutePath(request.scratch) ?? request.scratch)
  const skill = writableSkillView({ ...input, statusFd: 3 })
  const supervisor = {
    argv: [
      `${WARM_CONTROL_MOUNT}/sh`,
      '-c',
      SUPERVISOR_SCRIPT,
      'skillhost-warm',
      ...[scratch, skill?.sandbox ?? '', PINNED_SKILL_MOUNT, skill?.cp ?? ''],
      ...(tools as string[]),
    ],
    controlHost: CONTROL_HOST_PLACEHOLDER,
  }
  const { signal: _signal, ...neutral } = request
  const staged = settings.unreachable ?? []
  const { args, dataFiles } = buildBwrapCommand({
    ...input,
    request: { ...neutral, argv: ['/'] },
    supervisor,
    statusFd: 3,
    firstDataFd: STARTED_FD + 1,
    stagedReads: new Map(staged.map((host, i) => [host, stagePlaceholder(i)])),
  })
  // The staged host folders by name: their binds' sources are placeholders in `args`.
  const key = createHash('sha256')
    .update(JSON.stringify([settings.hostUser ?? null, staged, args, dataFiles]))
    .digest('hex')
  const cwd = posix.normalize(request.cwd)
  const callEnv = { ...sandboxCallEnv(request), PWD: cwd, SHLVL: '0' }
  return {
    key,
    start: {
      bwrapPath: settings.bwrapPath,
      hostUser: settings.hostUser,
      staged,
      args,
      dataFiles,
      shell: input.fdCloserShell,
      mkfifo,
    },
    call: {
      cwd,
      limits: ulimitCommand(input.limits).split(' ').slice(1),
      env: Object.entries(callEnv).map(([k, v]) => `${k}=${v}`),
      argv: request.argv,
    },
  }
}
