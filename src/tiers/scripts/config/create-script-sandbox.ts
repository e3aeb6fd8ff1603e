import { existsSync } from 'node:fs'
import { chmod, chown, mkdir } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { trackResource } from '../../../common/leak-tracker.js'
import type { ProvisionOptions } from '../deps/provision-env.js'
import {
  assertPolicySubset,
  derivePolicy,
  isPathInside,
  normalizeAbsolutePath,
  type SandboxPolicy,
} from '../policy/policy.js'
import {
  assertInterpreterProgram,
  assertReadPath,
  SYSTEM_READ_PATHS,
  scriptInterpreters,
  withInterpreterFamilies,
} from '../policy/script-interpreters.js'
import { createBubblewrapHandle } from '../sandbox/bubblewrap-handle.js'
import { hostLinkClosure, hostSystemLinks } from '../sandbox/host-link-closure.js'
import {
  hostCertificatePaths,
  hostToolConfigPaths,
  minimalEtcFiles,
} from '../sandbox/minimal-etc.js'
import { createPathTranslator } from '../sandbox/path-translator.js'
import {
  type HostIdentity,
  resolveSandboxHostUser,
  untraversableAncestor,
} from '../sandbox/sandbox-host-user.js'
import { createDirectoryWorkspace } from '../skill-copy/directory-skill-copies.js'
import type { SkillScriptConfig } from '../types.js'
import { removeTree } from '../workspace/remove-tree.js'
import { interpreterViews } from './interpreter-views.js'
import { mkdtempNeutral, neutralTempRoot } from './neutral-temp.js'

/** The provisioning options with the cache made and checked as a read path (never `/` or a home). */
async function provisionCache(options: ProvisionOptions): Promise<ProvisionOptions> {
  await mkdir(options.cacheDir, { recursive: true, mode: 0o755 })
  return { ...options, cacheDir: assertReadPath(options.cacheDir, 'provision cache') }
}

function normalizeDeny(path: string): string {
  return (
    normalizeAbsolutePath(path) ??
    refuse(
      'a deny entry is not an absolute path.',
      `deny entry '${path}' must be an absolute path.`,
    )
  )
}

/** Options for `createScriptSandbox`; every field has a working default. */
export interface ScriptSandboxOptions {
  /** The deployer's folders skillhost keeps state in (`SkillScriptConfig.ownFolders`): never granted. */
  readonly ownFolders?: readonly string[]
  /** A directory the sandbox owns (skill copies, scratch and session workspaces). Default: a fresh temp dir, removed on dispose. */
  readonly baseDir?: string
  /**
   * Interpreter allow-list, name → argv prefix with an absolute program path.
   * Default: `scriptInterpreters()` (sh, bash, python, python3, node where
   * installed). A program outside the system read paths (a venv's
   * `bin/python`, an nvm node) is seen at a neutral path under
   * `/opt/skillhost`, its installation bound read-only there
   * (`interpreterViews`) and in the session policy as well.
   * `python` alone also serves `python3` (and back): see `withInterpreterFamilies`.
   */
  readonly interpreters?: Readonly<Record<string, readonly string[]>>
  /** More directories scripts may read (read-only), each checked by `assertReadPath`; in the session policy too. */
  readonly readPaths?: readonly string[]
  /**
   * Session deny entries added to `credentialDenyPaths()`: nothing inside
   * them is ever readable, and a read path inside one is refused at setup.
   */
  readonly denyRead?: readonly string[]
  readonly maxTimeoutSeconds?: number
  readonly defaultTimeoutSeconds?: number
  readonly maxOutputBytes?: number
  readonly failOnNonzeroExit?: boolean
  /**
   * Let python scripts' declared requirements be installed, outside the
   * sandbox, into environments kept under `cacheDir` (made if missing,
   * granted read-only to scripts) from `index`. Off by default: missing
   * requirements are then `E_SKILL_SCRIPT_DEPS_MISSING`.
   */
  readonly provision?: ProvisionOptions
  /**
   * How long a warm sandbox waits idle for the next call of the same
   * derived policy before it ends (docs/security.md, "Warm sandbox"); 0
   * turns warm sandboxes off, so every call starts a fresh bwrap. Default
   * `DEFAULT_WARM_IDLE_MS`. An idle one never keeps the process alive, and
   * `dispose` (or the end of the session that owns it) ends it.
   */
  readonly warmIdleMs?: number
}

/** The default of `ScriptSandboxOptions.warmIdleMs`: 30 s, on for long-lived hosts. */
export const DEFAULT_WARM_IDLE_MS = 30_000

/** A ready tier-3 configuration and the one call that tears it all down. */
export interface ScriptSandbox {
  readonly config: SkillScriptConfig
  /** Base directory holding skill copies, scratch and session workspaces. */
  readonly baseDir: string
  dispose(): Promise<void>
}

export { SYSTEM_READ_PATHS }

/** Where credentials usually live in a home directory; never readable by a script. */
const CREDENTIAL_DIRS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.netrc',
  '.git-credentials',
  '.config/gcloud',
  '.config/gh',
]

/** The session deny entries every script sandbox has: the credential files of `home`. */
export function credentialDenyPaths(home: string = homedir()): string[] {
  return CREDENTIAL_DIRS.map((d) => join(home, d))
}

// `why` is model-safe (no host path); `person` may name the deployer's paths.
function refuse(why: string, person: string): never {
  throw new SkillHostError('E_INVALID_SKILLS_CONFIG', `scripts: ${why}`, {
    person: `scripts: ${person}`,
  })
}

/**
 * Builds the embedded tier-3 setup used by `skillhost run` and `skillhost
 * serve`: a bubblewrap handle (fails with `E_SANDBOX_UNAVAILABLE` naming the
 * package when bwrap cannot run), skill copies in a directory, a translator that
 * hides the base directory, a session policy (read: skill roots + system
 * directories, the host's TLS certificates, the deployer's read paths and the
 * installations of interpreters outside the system directories, seen at
 * neutral paths under `/opt/skillhost` (`interpreterViews`); deny: the
 * credential paths of the home directory; write: scratch only; no network)
 * and the interpreter allow-list. The setup is checked as every call will be
 * (`derivePolicy` + `assertPolicySubset`), so a read path inside a deny entry
 * is `E_SKILL_SCRIPT_POLICY_WIDENED` here, not at the first call; a bad
 * interpreter or read path, or one holding the base directory, is
 * `E_INVALID_SKILLS_CONFIG`.
 */
export async function createScriptSandbox(
  options: ScriptSandboxOptions = {},
): Promise<ScriptSandbox> {
  // The system folders' walk is the slow part of the set-up: start it first.
  void hostSystemLinks(SYSTEM_READ_PATHS.filter((p) => existsSync(p)))
  const warmIdleMs = warmIdle(options.warmIdleMs)
  const owned = options.baseDir === undefined
  const baseDir = options.baseDir ?? (await mkdtempNeutral(neutralTempRoot(), 'skillhost-'))
  try {
    const sandboxUser = await prepareBase(baseDir)
    const denyRead = [
      ...new Set([...credentialDenyPaths(), ...(options.denyRead ?? [])].map(normalizeDeny)),
    ]
    const reads = await readSetup(options, baseDir, sandboxUser, denyRead)
    const skillCopies = await createDirectoryWorkspace({ baseDir: join(baseDir, 'ws') })
    const policy = sessionPolicy(skillCopies, reads.readPaths, denyRead)
    const handle = await createBubblewrapHandle({
      warmIdleMs,
    })
    const config: SkillScriptConfig = {
      handle,
      workspace: skillCopies,
      policy,
      translator: createPathTranslator({ hiddenHostPaths: [baseDir] }),
      interpreters: reads.interpreters,
      interpreterViews: reads.viewed.views,
      interpreterMounts: reads.viewed.mounts,
      ...(reads.provision ? { provision: reads.provision } : {}),
      interpreterReadPaths: reads.readPaths,
      maxTimeoutSeconds: options.maxTimeoutSeconds ?? 60,
      defaultTimeoutSeconds: options.defaultTimeoutSeconds ?? 20,
      maxOutputBytes: options.maxOutputBytes ?? 256 * 1024,
      hostEnvIsolated: true,
      ...(options.ownFolders === undefined ? {} : { ownFolders: options.ownFolders }),
      ...(options.failOnNonzeroExit === undefined
        ? {}
        : { failOnNonzeroExit: options.failOnNonzeroExit }),
    }
    const untrack = owned
      ? trackResource('sandbox-dir', baseDir, () => existsSync(baseDir))
      : undefined
    return {
      config,
      baseDir,
      async dispose() {
        await handle.dispose?.()
        // removeTree copes with whatever a script left (deep chains, no permissions).
        if (owned) await removeTree(baseDir)
        untrack?.()
      },
    }
  } catch (err) {
    if (owned) await removeTree(baseDir).catch(() => undefined)
    throw err
  }
}

/** `warmIdleMs` checked: whole milliseconds a timer can hold, 0 for off. */
function warmIdle(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_WARM_IDLE_MS
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 2 ** 31 - 1)
    refuse(
      'warmIdleMs must be a whole number of milliseconds (0 turns warm sandboxes off).',
      `warmIdleMs ${String(ms)} must be a whole number of milliseconds from 0 to 2147483647 (0 turns warm sandboxes off).`,
    )
  return ms
}

/** The base directory made traversable by the sandbox's host identity, and only it; that identity. */
async function prepareBase(baseDir: string): Promise<HostIdentity | undefined> {
  const sandboxUser = resolveSandboxHostUser(undefined)
  if (sandboxUser !== undefined) await chown(baseDir, -1, sandboxUser.gid)
  await chmod(baseDir, sandboxUser === undefined ? 0o700 : 0o710)
  const blocked = await untraversableAncestor(baseDir, sandboxUser)
  if (blocked !== undefined) {
    throw new SkillHostError(
      'E_SANDBOX_UNAVAILABLE',
      `The sandbox cannot reach its base directory: a folder above it is not traversable by the sandbox user (uid ${String(sandboxUser?.uid)}); the host operator must put the base elsewhere or make that folder traversable.`,
      { person: `The sandbox cannot reach its base directory: ${blocked}.` },
    )
  }
  return sandboxUser
}

/** What scripts run with and may read: the interpreters, how they are seen, every read path. */
interface ReadSetup {
  readonly interpreters: Readonly<Record<string, readonly string[]>>
  readonly viewed: Awaited<ReturnType<typeof interpreterViews>>
  readonly provision: ProvisionOptions | undefined
  readonly readPaths: readonly string[]
}

async function readSetup(
  options: ScriptSandboxOptions,
  baseDir: string,
  sandboxUser: HostIdentity | undefined,
  denyRead: readonly string[],
): Promise<ReadSetup> {
  const systemPaths = SYSTEM_READ_PATHS.filter((p) => existsSync(p))
  const interpreters = options.interpreters
    ? withInterpreterFamilies(options.interpreters)
    : scriptInterpreters()
  const extraPaths = (options.readPaths ?? []).map((p) => assertReadPath(p))
  for (const [name, prefix] of Object.entries(interpreters)) {
    const program = Array.isArray(prefix) ? prefix[0] : undefined
    // A malformed entry: validateSkillScriptConfig says what is wrong.
    if (typeof program === 'string') assertInterpreterProgram(name, program)
  }
  // Interpreters outside the system directories run from neutral paths,
  // bound by descriptor when the sandbox user cannot reach them (a 0700 home).
  const shims = join(baseDir, 'python')
  const viewed = await interpreterViews(interpreters, systemPaths, shims)
  for (const m of viewed.mounts)
    if (!isPathInside(m.host, shims)) assertOutsideBase(m.host, baseDir)
  for (const path of extraPaths) await checkReadPath(path, baseDir, sandboxUser)
  const provision = options.provision && (await provisionCache(options.provision))
  const readPaths = [
    ...new Set([
      ...systemPaths,
      ...hostCertificatePaths(),
      ...hostToolConfigPaths(),
      ...extraPaths,
      ...viewed.mounts.map((m) => m.host),
      ...(provision ? [provision.cacheDir] : []),
    ]),
  ]
  return {
    interpreters,
    viewed,
    provision,
    readPaths: await withLinkTargets(readPaths, systemPaths, [baseDir, ...denyRead]),
  }
}

/**
 * `readPaths` plus what the links in the system folders lead to outside
 * them (`hostLinkClosure`: `/etc/alternatives`, a JDK's `/etc` config), so
 * every command found on the host is found inside. Never a deny entry, the
 * base directory or a synthetic `/etc` file.
 */
async function withLinkTargets(
  readPaths: readonly string[],
  systemPaths: readonly string[],
  never: readonly string[],
): Promise<string[]> {
  const synthetic = minimalEtcFiles({ uid: 0, gid: 0, home: '/' }).map((f) => f.path)
  const targets = await hostLinkClosure({
    roots: systemPaths,
    visible: readPaths,
    never: [...never, ...synthetic],
  })
  return [...new Set([...readPaths, ...targets])]
}

/** A read path that overlaps the base directory (every session's workspace) is refused. */
function assertOutsideBase(path: string, baseDir: string): void {
  if (isPathInside(baseDir, path) || isPathInside(path, baseDir)) {
    refuse(
      'a read path overlaps the sandbox base directory (skill copies, scratch and session workspaces); give a directory outside it.',
      `read path '${path}' overlaps the sandbox base directory (skill copies, scratch and session workspaces); give a directory outside it.`,
    )
  }
}

/** A read path that overlaps the base directory, or that the sandbox user cannot reach, is refused. */
async function checkReadPath(
  path: string,
  baseDir: string,
  sandboxUser: HostIdentity | undefined,
): Promise<void> {
  assertOutsideBase(path, baseDir)
  const closed = await untraversableAncestor(path, sandboxUser)
  if (closed !== undefined)
    refuse(
      "a read path is out of the sandbox's reach (a folder above it is not traversable).",
      `read path '${path}' is out of the sandbox's reach: ${closed}.`,
    )
}

/**
 * The session policy (read: the skill copies and `readPaths`; deny:
 * `denyRead`; write: scratch only; no network),
 * checked now as every call will be, for the widest call.
 */
function sessionPolicy(
  skillCopies: { readonly skillsDir: string; readonly scratchDir: string },
  readPaths: readonly string[],
  denyRead: readonly string[],
): SandboxPolicy {
  const policy: SandboxPolicy = {
    filesystem: {
      allowRead: [skillCopies.skillsDir, ...readPaths],
      denyRead: [...denyRead],
      allowWrite: [skillCopies.scratchDir],
      denyWrite: [],
    },
    network: { allowedDomains: [] },
  }
  const widest = derivePolicy({
    skillRoot: skillCopies.skillsDir,
    scratchDir: skillCopies.scratchDir,
    interpreterReadPaths: readPaths,
    session: policy,
  })
  assertPolicySubset(widest, policy)
  return policy
}
