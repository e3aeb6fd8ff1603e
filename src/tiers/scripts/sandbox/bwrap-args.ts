import { posix } from 'node:path'
import { isPathInside, normalizeAbsolutePath } from '../policy/policy.js'
import { closingInheritedFds } from './close-inherited-fds.js'
import { minimalEtcFiles, type SyntheticFile, uncoveredFiles } from './minimal-etc.js'
import { ulimitCommand } from './run-request.js'
import type { ResolvedSandboxLimits, SandboxRunRequest } from './types.js'
import { WARM_CONTROL_MOUNT } from './warm-supervisor.js'
import {
  copyProgram,
  copySkillCommand,
  writableSkillArgs,
  writableSkillSize,
} from './writable-skill.js'

/** What the host knows about one policy path before the sandbox starts. */
export type HostPathFact =
  | { readonly kind: 'dir' | 'file' | 'missing' }
  | { readonly kind: 'symlink'; readonly target: string; readonly resolved: string }

/** Everything `buildBwrapArgs` needs besides the request. */
export interface BwrapArgsInput {
  readonly request: SandboxRunRequest
  readonly limits: ResolvedSandboxLimits
  /**
   * Ignored: the limits are bash `ulimit` builtins of the fd closer now, so
   * no `prlimit` runs. Accepted so existing callers still compile.
   */
  readonly prlimitPath?: string
  /**
   * Absolute path of the bash that applies the limits and closes inherited
   * fds before the command; readable in the sandbox.
   */
  readonly fdCloserShell: string
  readonly sandboxUid: number
  readonly sandboxGid: number
  /** Whether this bwrap knows `--disable-userns` (0.8.0 and later). */
  readonly disableUserns: boolean
  /** The fd bwrap writes its JSON status to (child pid, namespaces, exit code). */
  readonly statusFd: number
  /** Facts about every path in the policy, by normalized host path. */
  readonly facts: ReadonlyMap<string, HostPathFact>
  /**
   * When set, the minimal `/etc` (see `minimalEtcFiles`) is mounted
   * read-only from fds `firstDataFd`, `firstDataFd + 1`, …, which bwrap reads
   * to EOF during setup; `buildBwrapCommand` says what to write to each.
   * Absent: no synthetic files, and no fd beyond the status fd is referenced.
   */
  readonly firstDataFd?: number
  /**
   * Read entries (normalized host path → an empty host folder it is bound
   * onto before bwrap starts, `stageUnreachableReads`), bound from there in
   * the entry's place: how a directory the sandbox's host user cannot reach
   * by path (a python under a 0700 `/root`) is still bound where the policy says.
   */
  readonly stagedReads?: ReadonlyMap<string, string>
  /**
   * A warm sandbox's supervisor (`warm-supervisor.ts`): run as the pid
   * namespace's init (`--as-pid-1`) in place of the fd closer and the
   * request's argv, which it starts per call itself.
   */
  readonly supervisor?: {
    readonly argv: readonly string[]
    /** The host control folder, bound read-only at `WARM_CONTROL_MOUNT`. */
    readonly controlHost: string
  }
}

/** A synthetic file of the sandbox and the fd bwrap reads its content from. */
export interface BwrapDataFile extends SyntheticFile {
  readonly fd: number
}

/** A host descriptor bwrap binds read-only, and the fd number the spawner hands it on. */
export interface BwrapFdBind {
  /** The fd in bwrap's fd table (after the data files). */
  readonly fd: number
  /** The host descriptor to pass there (the request's `readOnlyFds` entry). */
  readonly hostFd: number
  readonly sandbox: string
}

/** The bwrap argv and the synthetic files and descriptors it expects on extra fds. */
export interface BwrapCommand {
  readonly args: string[]
  /** What the spawner must write (then close) on each fd, in fd order. */
  readonly dataFiles: readonly BwrapDataFile[]
  /** Host descriptors the spawner passes on the given fds, after the data files. */
  readonly fdBinds: readonly BwrapFdBind[]
}

/**
 * The fixed environment of every sandboxed child, before the request's own
 * `env`: PATH, HOME and TMPDIR, and `LANG=C.UTF-8` so interpreters decode
 * and print UTF-8 (the C.UTF-8 locale is built into glibc 2.35+ and Debian's).
 */
export function sandboxBaseEnv(home: string): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, TMPDIR: home, LANG: 'C.UTF-8' }
}

/**
 * The environment a call's command starts with, cold or warm: the base
 * (`sandboxBaseEnv`, HOME and TMPDIR the call's scratch as the sandbox sees
 * it, else its cwd), then the request's own `env`.
 */
export function sandboxCallEnv(request: SandboxRunRequest): Record<string, string> {
  const norm = (p: string) => normalizeAbsolutePath(p) ?? p
  const toSandbox = request.toSandboxPath ?? ((p: string) => p)
  const home = request.scratch === undefined ? request.cwd : toSandbox(norm(request.scratch))
  return { ...sandboxBaseEnv(home), ...request.env }
}

function depth(path: string): number {
  return path === '/' ? 0 : path.split('/').length
}

/**
 * The bwrap argv for one call (without the `bwrap` program itself). Read
 * entries become read-only binds, write entries writable binds (at the path
 * the request's translator gives) except the request's `scratch`, which is a
 * fresh tmpfs of `limits.writableBytes`, and the request's `writableSkill`,
 * which is shown through a per-call writable copy (`writable-skill.ts`), deny entries are masked (an empty
 * read-only tmpfs over a directory, `/dev/null` over a file) or re-bound
 * read-only. A top-level symlink whose target is itself readable is recreated
 * as a symlink rather than bound twice (merged-/usr systems: `/bin -> usr/bin`).
 * Every namespace is unshared, the environment cleared, capabilities dropped,
 * and the command runs as an unprivileged uid under the limits (bash `ulimit`,
 * `ulimitCommand`), with every inherited fd above 2 closed first
 * (`closingInheritedFds`).
 */
export function buildBwrapArgs(input: BwrapArgsInput): string[] {
  return buildBwrapCommand(input).args
}

/**
 * `buildBwrapArgs` plus the minimal `/etc` when `input.firstDataFd` is set:
 * each synthetic file the policy does not already cover from the host
 * (`uncoveredFiles`) becomes `--perms 0444 --file FD PATH`, written after
 * every policy mount into bwrap's own root tmpfs, which `--remount-ro /` then
 * freezes, and is listed in `dataFiles` with its fd. A file in the root
 * needs no mount of its own; in time the two ways measure within noise of
 * each other (bench/overhead-breakdown.sh).
 */
export function buildBwrapCommand(input: BwrapArgsInput): BwrapCommand {
  const { request } = input
  const norm = (p: string) => normalizeAbsolutePath(p) ?? p
  // HOME and TMPDIR are the per-call scratch (a private capped tmpfs), so
  // caches and dotfiles an interpreter writes never land in the workspace.
  const scratch = request.scratch === undefined ? undefined : norm(request.scratch)
  const toSandbox = request.toSandboxPath ?? ((p: string) => p)
  const env = sandboxCallEnv(request)
  const dataFiles = etcDataFiles(input, env.HOME ?? request.cwd)
  const firstBindFd = (input.firstDataFd ?? input.statusFd + 1) + dataFiles.length
  // Granted entries first, then the read-only fds that go on top of everything.
  const grantBinds: BwrapFdBind[] = []
  const ctx: MountContext = {
    input,
    norm,
    toSandbox,
    scratch,
    grantedFd: (host, sandbox) => {
      const hostFd = request.grantedFds?.get(host)
      if (hostFd === undefined) return undefined
      const fd = firstBindFd + grantBinds.length
      grantBinds.push({ fd, hostFd, sandbox })
      return fd
    },
  }
  // Reads, then writes (granted fds numbered in that order), then the masks.
  const mounts = [...readMounts(ctx), ...writeMounts(ctx), ...denyMounts(ctx)]
  // Parents before children, so a nested bind or mask lands on top of its parent.
  // The sort is stable, so a deny at the same path stays after its allow.
  mounts.sort((a, b) => depth(a.sandbox) - depth(b.sandbox))
  const protectedBinds = (request.readOnlyFds ?? []).map((b, i) => ({
    fd: firstBindFd + grantBinds.length + i,
    hostFd: b.fd,
    sandbox: posix.normalize(b.sandbox),
  }))
  const args = [
    ...namespaceArgs(input),
    ...mounts.flatMap((m) => m.args),
    ...(request.symlinks ?? []).flatMap((l) => ['--symlink', l.target, posix.normalize(l.path)]),
    // After every policy mount, so each lands on top of the writable bind it protects.
    ...protectedBinds.flatMap((b) => ['--ro-bind-fd', String(b.fd), b.sandbox]),
    ...dataFiles.flatMap((f) => ['--perms', '0444', '--file', String(f.fd), f.path]),
    ...(input.supervisor === undefined
      ? []
      : ['--ro-bind', input.supervisor.controlHost, WARM_CONTROL_MOUNT]),
    // bwrap's root and /dev are tmpfs owned by the sandbox uid: writable memory
    // outside the policy. Freeze both once every mount point exists.
    '--remount-ro',
    '/',
    '--remount-ro',
    '/dev',
    '--chdir',
    posix.normalize(request.cwd),
    ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
    '--json-status-fd',
    String(input.statusFd),
    ...(input.supervisor === undefined
      ? ['--', ...closingInheritedFds(input.fdCloserShell, request.argv, callSetupCommand(ctx))]
      : ['--as-pid-1', '--', ...input.supervisor.argv]),
  ]
  return { args, dataFiles, fdBinds: [...grantBinds, ...protectedBinds] }
}

/** One mount of the policy: where it lands inside, and its bwrap arguments. */
interface Mount {
  readonly sandbox: string
  readonly args: string[]
}

/** What the policy's mounts of one call are made from. */
interface MountContext {
  readonly input: BwrapArgsInput
  readonly norm: (p: string) => string
  readonly toSandbox: (p: string) => string
  /** The call's scratch (a capped tmpfs), normalized. */
  readonly scratch: string | undefined
  /** The fd a granted host path is bound from, numbered as it is asked for; undefined when not granted. */
  readonly grantedFd: (host: string, sandbox: string) => number | undefined
}

/** The bwrap arguments before any mount: namespaces, identity, capabilities, /proc and /dev. */
function namespaceArgs(input: BwrapArgsInput): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    ...(input.disableUserns ? ['--disable-userns'] : []),
    '--uid',
    String(input.sandboxUid),
    '--gid',
    String(input.sandboxGid),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--hostname',
    'sandbox',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ]
}

/**
 * The read-only mounts: a granted path from its descriptor, a staged read
 * from its stage, a symlink whose target another readable folder holds as the
 * link itself, anything else bound read-only; a missing path is left out.
 */
function readMounts(ctx: MountContext): Mount[] {
  const { facts, request } = ctx.input
  const readable = request.policy.filesystem.allowRead.map(ctx.norm)
  const mounts: Mount[] = []
  const writable = writableSkillHost(ctx)
  for (const host of readable) {
    const sandbox = ctx.toSandbox(host)
    if (host === writable) {
      const size = writableSkillSize(
        request.writableSkill?.fileBytes ?? [],
        ctx.input.limits.writableBytes,
      )
      mounts.push({ sandbox, args: writableSkillArgs(host, sandbox, size) })
      continue
    }
    const viaFd = ctx.grantedFd(host, sandbox)
    if (viaFd !== undefined) {
      mounts.push({ sandbox, args: ['--ro-bind-fd', String(viaFd), sandbox] })
      continue
    }
    const fact = facts.get(host) ?? { kind: 'missing' }
    if (fact.kind === 'missing') continue
    const stage = ctx.input.stagedReads?.get(host)
    if (stage !== undefined) {
      mounts.push({ sandbox, args: ['--ro-bind', stage, sandbox] })
      continue
    }
    const viaLink =
      fact.kind === 'symlink' &&
      sandbox === host &&
      readable.some(
        (r) => r !== host && facts.get(r)?.kind === 'dir' && isPathInside(fact.resolved, r),
      )
    if (viaLink) mounts.push({ sandbox, args: ['--symlink', fact.target, sandbox] })
    else mounts.push({ sandbox, args: ['--ro-bind', host, sandbox] })
  }
  return mounts
}

/** The host path of the skill copy shown writable this call: a read entry, and `cp` present. */
function writableSkillHost(ctx: MountContext): string | undefined {
  const wanted = ctx.input.request.writableSkill
  if (wanted === undefined || copyProgram() === undefined) return undefined
  const host = ctx.norm(wanted.host)
  const readable = ctx.input.request.policy.filesystem.allowRead.map(ctx.norm)
  return readable.includes(host) && ctx.input.facts.get(host)?.kind === 'dir' ? host : undefined
}

/**
 * The writable `/skill` of a call as the sandbox sees it and the `cp` that
 * fills it from the pinned copy, when the call has one (`writableSkillHost`).
 */
export function writableSkillView(
  input: BwrapArgsInput,
): { readonly sandbox: string; readonly cp: string } | undefined {
  const norm = (p: string) => normalizeAbsolutePath(p) ?? p
  const toSandbox = input.request.toSandboxPath ?? ((p: string) => p)
  const ctx = { input, norm, toSandbox, scratch: undefined, grantedFd: () => undefined }
  const host = writableSkillHost(ctx)
  const cp = copyProgram()
  return host === undefined || cp === undefined ? undefined : { sandbox: toSandbox(host), cp }
}

/** What the fd closer runs before the command: the writable skill's copy, then the limits. */
function callSetupCommand(ctx: MountContext): string {
  const limits = ulimitCommand(ctx.input.limits)
  const host = writableSkillHost(ctx)
  const cp = copyProgram()
  if (host === undefined || cp === undefined) return limits
  return `${copySkillCommand(cp, ctx.toSandbox(host))} && ${limits}`
}

/** The writable mounts: the scratch as a capped tmpfs, a granted path from its descriptor, else a bind. */
function writeMounts(ctx: MountContext): Mount[] {
  const { request, limits } = ctx.input
  const mounts: Mount[] = []
  for (const host of request.policy.filesystem.allowWrite.map(ctx.norm)) {
    const sandbox = ctx.toSandbox(host)
    const viaFd = host === ctx.scratch ? undefined : ctx.grantedFd(host, sandbox)
    if (host === ctx.scratch) {
      mounts.push({
        sandbox,
        args: ['--size', String(limits.writableBytes), '--tmpfs', sandbox],
      })
    } else if (viaFd !== undefined) {
      mounts.push({ sandbox, args: ['--bind-fd', String(viaFd), sandbox] })
    } else mounts.push({ sandbox, args: ['--bind', host, sandbox] })
  }
  return mounts
}

/** The masks: a denied folder as an empty read-only tmpfs, a denied file as /dev/null; denied writes read-only. */
function denyMounts(ctx: MountContext): Mount[] {
  const { facts, request } = ctx.input
  const fs = request.policy.filesystem
  const mounts: Mount[] = []
  for (const host of fs.denyRead.map(ctx.norm)) {
    const fact = facts.get(host)
    const sandbox = ctx.toSandbox(host)
    if (fact?.kind === 'dir')
      mounts.push({ sandbox, args: ['--tmpfs', sandbox, '--remount-ro', sandbox] })
    else if (fact !== undefined && fact.kind !== 'missing') {
      mounts.push({ sandbox, args: ['--ro-bind', '/dev/null', sandbox] })
    }
  }
  for (const host of fs.denyWrite.map(ctx.norm)) {
    const fact = facts.get(host)
    if (fact !== undefined && fact.kind !== 'missing') {
      const sandbox = ctx.toSandbox(host)
      mounts.push({ sandbox, args: ['--ro-bind', host, sandbox] })
    }
  }
  return mounts
}

/** The synthetic `/etc` files of one call, numbered from `firstDataFd`; none when it is unset. */
function etcDataFiles(input: BwrapArgsInput, home: string): BwrapDataFile[] {
  const first = input.firstDataFd
  if (first === undefined) return []
  const fs = input.request.policy.filesystem
  const toSandbox = input.request.toSandboxPath ?? ((p: string) => p)
  const shown: string[] = []
  for (const entry of [...fs.allowRead, ...fs.allowWrite]) {
    const host = normalizeAbsolutePath(entry) ?? entry
    if ((input.facts.get(host)?.kind ?? 'missing') !== 'missing') shown.push(toSandbox(host))
  }
  const files = minimalEtcFiles({ uid: input.sandboxUid, gid: input.sandboxGid, home })
  return uncoveredFiles(files, shown).map((f, i) => ({ ...f, fd: first + i }))
}
