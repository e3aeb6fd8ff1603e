import type { SandboxPolicy } from '../policy/policy.js'

/**
 * Resource limits applied to the sandboxed child and everything it starts.
 * Each is per process (as `setrlimit` defines them) except `processes`, which
 * bounds the number of tasks (processes and threads) inside one sandbox.
 * Byte limits are applied in whole KiB (rounded down, at least 1 KiB).
 */
export interface SandboxLimits {
  /**
   * RLIMIT_DATA: writable private memory per process (heap, anonymous
   * mappings, writable private file mappings), bytes. Past it allocations
   * fail (Python raises MemoryError, V8 aborts with "heap out of memory") and
   * the script exits nonzero. Address space that is only reserved
   * (`PROT_NONE`, e.g. V8's code range or WebAssembly guard regions) is not
   * counted, so runtimes that reserve large ranges (Node 24) still start.
   */
  readonly memoryBytes?: number
  /**
   * RLIMIT_AS: virtual address space per process, bytes. Not applied unless
   * set (`memoryBytes` bounds memory): it counts reservations too, and Node
   * 24 cannot start below several GiB of it ("Failed to reserve virtual
   * memory for CodeRange").
   */
  readonly addressSpaceBytes?: number
  /** RLIMIT_CPU: CPU seconds per process (SIGXCPU, then SIGKILL). */
  readonly cpuSeconds?: number
  /** RLIMIT_FSIZE: largest file a process may write, bytes (SIGXFSZ past it). */
  readonly fileSizeBytes?: number
  /** RLIMIT_NOFILE: open file descriptors per process. */
  readonly openFiles?: number
  /** RLIMIT_NPROC: tasks inside the sandbox's own user namespace. */
  readonly processes?: number
  /**
   * Size of the call's scratch tmpfs (see `SandboxRunRequest.scratch`), bytes:
   * everything the call writes there, all files and directories together.
   * Past it writes fail with ENOSPC. It is memory, freed when the call ends.
   */
  readonly writableBytes?: number
}

/** The limits one run applies: every field set except the opt-in `addressSpaceBytes`. */
export type ResolvedSandboxLimits = Required<Omit<SandboxLimits, 'addressSpaceBytes'>> &
  Pick<SandboxLimits, 'addressSpaceBytes'>

/** One process to run under a policy. Everything is explicit; nothing is inherited from the host. */
export interface SandboxRunRequest {
  /** Program and arguments, as the sandbox sees them; `argv[0]` is an absolute sandbox path. Never run through a shell. */
  readonly argv: readonly string[]
  /** Working directory inside the sandbox. */
  readonly cwd: string
  /** The derived per-call policy (host paths). The handle grants exactly this. */
  readonly policy: SandboxPolicy
  /** The child's environment on top of a fixed PATH/HOME/TMPDIR; the library passes `{}`. */
  readonly env: Readonly<Record<string, string>>
  /** Wall-clock deadline; past it the whole sandbox is killed. */
  readonly timeoutMs: number
  /** Total bytes of stdout + stderr kept; the rest is drained and dropped. */
  readonly maxOutputBytes: number
  /** Aborting kills the whole sandbox. */
  readonly signal?: AbortSignal
  /** Overrides the handle's default limits field by field. */
  readonly limits?: SandboxLimits
  /** Where a host path of the policy appears inside the sandbox; identity when absent. */
  readonly toSandboxPath?: (hostPath: string) => string
  /**
   * One `allowWrite` entry that is the call's private scratch. Instead of
   * being bound, it is mounted as a fresh tmpfs capped at
   * `limits.writableBytes`: the call's writes there never reach the host
   * disk, are bounded in total, and vanish with the sandbox.
   */
  readonly scratch?: string
  /**
   * The skill copy (an `allowRead` entry, by host path) shown writable for
   * this call only: bound read-only at `PINNED_SKILL_MOUNT`, copied at start
   * into a fresh tmpfs at its sandbox path, sized `fileBytes` (page-rounded)
   * plus `limits.writableBytes`. Nothing written there reaches the host, and
   * the next call starts again from the pinned bytes.
   */
  readonly writableSkill?: { readonly host: string; readonly fileBytes: readonly number[] }
  /**
   * Symlinks made inside before the command runs (`--symlink target path`):
   * a plugin skill's `/skill`, pointing at its place below `/plugin`.
   */
  readonly symlinks?: readonly { readonly path: string; readonly target: string }[]
  /**
   * Host descriptors (held open by the caller for the call's start) bound
   * read-only at sandbox paths on top of the policy's mounts: how a folder
   * inside a writable bind (a workspace's `.git`) is re-protected without
   * naming it by a host path a script could have swapped for a symlink.
   * (bwrap 0.8 reads the descriptor's current path back and mounts that, so
   * this excludes a swap made before the call, not one in the two syscalls
   * between; for `.git` no contained code runs in the workspace then.)
   */
  readonly readOnlyFds?: readonly { readonly fd: number; readonly sandbox: string }[]
  /**
   * Held descriptors (`O_PATH`, opened without following any symlink) of the
   * policy entries a skill's approved permission request added, by
   * normalized host path: each such `allowRead` / `allowWrite` entry is bound
   * from its descriptor (`--ro-bind-fd` / `--bind-fd`) in the entry's place
   * among the policy's mounts, so deny masks still land on top, and a symlink
   * put in a path the skill chose before the call is never followed (bwrap
   * 0.8 mounts the descriptor's current path, read back just before: a swap
   * of a parent in between is not excluded, see docs/security.md). An entry
   * of the policy without one here is bound by path as usual.
   */
  readonly grantedFds?: ReadonlyMap<string, number>
  /**
   * The host identity this call runs as, instead of the handle's own, when
   * the handle runs sandboxes as a distinct user (the host is root): how a
   * script writes a user's folder as that user. Never uid 0 (refused with
   * `E_SANDBOX_UNAVAILABLE`); ignored by a handle that runs as this process.
   */
  readonly runAs?: { readonly uid: number; readonly gid: number }
  /**
   * Who the call belongs to (the session's workspace): a handle that keeps
   * warm sandboxes never lets calls of two owners share one, and
   * `release(owner)` ends the owner's. Unset: the handle's own calls.
   */
  readonly owner?: object
}

/** Why and how a sandboxed process ended, and what it wrote. */
export interface SandboxRunResult {
  /** The child's exit code; `null` when the sandbox was killed. A child killed by signal N inside reports 128 + N. */
  readonly exitCode: number | null
  /**
   * The last signal the host sent on timeout or abort: `SIGTERM` when the
   * command ended within the grace that follows it, `SIGKILL` when it had to
   * be killed; `null` when the host sent none.
   */
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly aborted: boolean
  /** Captured stdout (within `maxOutputBytes` together with stderr). */
  readonly stdout: Uint8Array
  /** Captured stderr. */
  readonly stderr: Uint8Array
  /** True when some output was dropped to honour `maxOutputBytes`. */
  readonly truncated: boolean
  /** Total bytes the child wrote to stdout and stderr, kept or dropped. */
  readonly bytes: number
  /** Processes of this sandbox still alive after it ended and killed by the post-call check (expected 0). */
  readonly leakedProcesses: number
}

/** Runs processes under a policy. The handle is host-owned; `dispose` releases what it holds. */
export interface SandboxHandle {
  run(request: SandboxRunRequest): Promise<SandboxRunResult>
  /**
   * Starts one trivial sandboxed process and checks it ran (what a
   * readiness check asks); rejects with `E_SANDBOX_UNAVAILABLE` otherwise.
   */
  probe?(): Promise<void>
  /**
   * Ends whatever the handle keeps for `owner` between calls (its warm
   * sandboxes, idle or running): called when the owner's session ends.
   */
  release?(owner: object): Promise<void>
  dispose?(): Promise<void>
}

/** A skill file to materialize: a normalized relative path and a reader for its bytes. */
export interface WorkspaceFile {
  readonly path: string
  read(): Promise<Uint8Array | ReadableStream<Uint8Array>>
}

/** Which skill version a skill copy holds. */
export interface WorkspaceRef {
  readonly id: string
  readonly version: string
}

/**
 * The skill copies: a loaded skill's files on disk, mounted read-only at
 * `/skill` (the reference documents call this the skill's workspace; the
 * conversation's read-write `/work` is the session workspace, a different
 * thing). `materialize` returns a fresh, authoritative root per
 * call (two versions of one skill coexist during a refresh); `dispose` removes
 * it. `createScratch` gives a fresh writable directory for one script call.
 * Failures are `E_SKILL_WORKSPACE_FAILED`; an abort is `E_ABORTED`.
 */
export interface SkillWorkspace {
  /** Where the copies live, when known: no skill's permission request may overlap it. */
  readonly skillsDir?: string
  /** Where the per-call scratch folders live, when known: likewise off limits to requests. */
  readonly scratchDir?: string
  materialize(
    ref: WorkspaceRef,
    files: Iterable<WorkspaceFile> | AsyncIterable<WorkspaceFile>,
    options?: { signal?: AbortSignal },
  ): Promise<string>
  dispose(root: string): Promise<void>
  createScratch(): Promise<string>
  disposeScratch(dir: string): Promise<void>
}

/** One host directory and where it appears inside the sandbox. */
export interface PathMount {
  readonly host: string
  readonly sandbox: string
}

/**
 * The per-call view of paths: the skill root and scratch directory mapped to
 * fixed sandbox paths, everything else (interpreter paths) at its host path.
 */
export interface CallPathTranslator {
  readonly mounts: readonly PathMount[]
  /** The sandbox path of a host path (identity when no mount covers it). */
  toSandbox(hostPath: string): string
  /** Replaces the call's host paths in `text` with their sandbox paths, and hidden host paths with `<host>`. */
  redact(text: string): string
}

/** Maps host paths to what a sandbox sees; session-wide, bound per call. */
export interface PathTranslator {
  /** Where the skill root appears inside the sandbox (e.g. `/skill`). */
  readonly skillMount: string
  /** Where the per-call scratch appears inside the sandbox (e.g. `/tmp`). */
  readonly scratchMount: string
  /** Where the session workspace appears inside the sandbox (e.g. `/work`). */
  readonly workspaceMount: string
  /**
   * Host paths that never reach the model (skillhost's own folders, such as
   * the sandbox base); no skill's permission request may name one.
   */
  readonly hiddenHostPaths?: readonly string[]
  forCall(paths: {
    skillRoot: string
    scratchDir: string
    workspaceDir?: string
    /**
     * Host directories the call sees at fixed sandbox paths besides its own
     * (an interpreter's installation at `/opt/skillhost/...`), so they are
     * bound and shown there, never at their host paths.
     */
    interpreterMounts?: readonly PathMount[]
    /** For a skill in a plugin: the plugin copy's root (holding `skillRoot`) and the skill's place in it. */
    plugin?: { readonly root: string; readonly skillPath: string }
  }): CallPathTranslator
}
