import { randomBytes } from 'node:crypto'
import { constants, existsSync } from 'node:fs'
import { chmod, chown, lstat, mkdir, mkdtemp, open, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import {
  currentResourceTracker,
  trackResource,
  type Untrack,
} from '../../../common/leak-tracker.js'
import { normalizeSkillPath } from '../../../skill-model/skill-path.js'
import { isPathInside, normalizeAbsolutePath } from '../policy/policy.js'
import {
  type HostIdentity,
  resolveSandboxHostUser,
  untraversableAncestor,
} from '../sandbox/sandbox-host-user.js'
import type { SkillWorkspace, WorkspaceFile, WorkspaceRef } from '../sandbox/types.js'
import { removeTree } from '../workspace/remove-tree.js'

/** Options of `createDirectoryWorkspace`. */
export interface DirectoryWorkspaceOptions {
  /** An absolute directory this store owns; skill copies go below `skills/`, per-call scratch below `scratch/`. */
  readonly baseDir: string
  /** Largest single file, bytes; default 16 MiB. */
  readonly maxFileBytes?: number
  /** Largest skill in total, bytes; default 64 MiB. */
  readonly maxTotalBytes?: number
  /**
   * The host identity the sandbox runs as, which alone (besides this process)
   * may read the skill copies; the same choice as the bubblewrap handle's
   * `hostUser`, with the same default (`nobody` when this process is root).
   */
  readonly sandboxUser?: HostIdentity | 'inherit'
}

/** The skill copies (`SkillWorkspace`) in a directory, exposing where it keeps them and scratch so a session policy can name them. */
export interface DirectoryWorkspace extends SkillWorkspace {
  /** Real path of the directory holding materialized skill roots (put it in the session's allowRead). */
  readonly skillsDir: string
  /** Real path of the directory holding per-call scratch directories (put it in the session's allowWrite). */
  readonly scratchDir: string
}

// traverse: directories nobody needs to list; dir: a skill's own directories.
const SHARED_MODES = { traverse: 0o710, dir: 0o750, file: 0o640 } as const
const PRIVATE_MODES = { traverse: 0o700, dir: 0o700, file: 0o600 } as const

function failed(message: string, cause?: unknown): SkillHostError {
  return new SkillHostError('E_SKILL_WORKSPACE_FAILED', message, { cause })
}

function segment(text: string): string {
  const cleaned = String(text)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_')
  return (cleaned || '_').slice(0, 48)
}

async function* chunksOf(
  data: Uint8Array | ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  if (data instanceof Uint8Array) {
    yield data
    return
  }
  const reader = data.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    reader.releaseLock()
  }
}

/**
 * Skill copies in `baseDir`, private to this process and the sandbox's host
 * identity: with a distinct sandbox identity everything is group-owned by its
 * gid (directories 0750, or 0710 where nobody needs to list them; files
 * 0640), otherwise 0700/0600, whatever the source modes or the umask. No other
 * local user can list or read a skill's files. `materialize` writes every
 * file into a fresh root `skills/<id>-<version>-<random>` (created
 * exclusively and never through a symlink), enforcing size caps, after
 * checking that the sandbox identity can traverse to it (else
 * `E_SKILL_WORKSPACE_FAILED` naming the directory to fix); a rejected
 * path is `E_SKILL_SOURCE_PATH_REJECTED`, an abort `E_ABORTED`, anything else
 * `E_SKILL_WORKSPACE_FAILED`, and a failed root is removed. `dispose` removes
 * only roots this workspace made (idempotent).
 */
export async function createDirectoryWorkspace(
  options: DirectoryWorkspaceOptions,
): Promise<DirectoryWorkspace> {
  const base = normalizeAbsolutePath(options.baseDir)
  if (base === undefined) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      'The skill copies baseDir must be an absolute path.',
    )
  }
  const maxFile = options.maxFileBytes ?? 16 * 1024 * 1024
  const maxTotal = options.maxTotalBytes ?? 64 * 1024 * 1024
  const share = resolveSandboxHostUser(options.sandboxUser)
  const modes = share === undefined ? PRIVATE_MODES : SHARED_MODES
  // Modes are set explicitly after each create: the umask must not widen or narrow them.
  const own = async (path: string, mode: number) => {
    if (share !== undefined) await chown(path, -1, share.gid)
    await chmod(path, mode)
  }
  let skillsDir: string
  let scratchDir: string
  try {
    await mkdir(base, { recursive: true, mode: 0o700 })
    const real = await realpath(base)
    await own(real, modes.traverse)
    skillsDir = join(real, 'skills')
    scratchDir = join(real, 'scratch')
    for (const dir of [skillsDir, scratchDir]) {
      await mkdir(dir, { recursive: true, mode: 0o700 })
      await own(dir, modes.traverse)
    }
  } catch (cause) {
    throw failed('The skill copies directory could not be created.', cause)
  }

  async function writeFile(
    root: string,
    file: WorkspaceFile,
    budget: { left: number },
    signal?: AbortSignal,
  ) {
    const rel = normalizeSkillPath(file.path)
    const parts = rel.split('/')
    let dir = root
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part)
      const made = await mkdir(dir, { mode: 0o700 }).then(
        () => true,
        async (err: NodeJS.ErrnoException) => {
          const st = err.code === 'EEXIST' ? await lstat(dir) : undefined
          if (!st?.isDirectory()) throw err
          return false
        },
      )
      if (made) await own(dir, modes.dir)
    }
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
    const handle = await open(join(root, rel), flags, 0o600)
    try {
      if (share !== undefined) await handle.chown(-1, share.gid)
      await handle.chmod(modes.file)
      let size = 0
      for await (const chunk of chunksOf(await file.read())) {
        if (signal?.aborted) throw new SkillHostError('E_ABORTED', 'Materialization was aborted.')
        size += chunk.byteLength
        budget.left -= chunk.byteLength
        if (size > maxFile) throw failed(`The skill file '${rel}' exceeds ${maxFile} bytes.`)
        if (budget.left < 0) throw failed(`The skill exceeds ${maxTotal} bytes in total.`)
        await handle.write(chunk)
      }
    } finally {
      await handle.close()
    }
  }

  // What the leak tracker knows of each skill copy and scratch directory made
  // here; kept only while a tracker is installed (tests), so it never grows otherwise.
  const untracks = new Map<string, Untrack>()
  const track = (kind: 'skill-copy' | 'scratch', dir: string): string => {
    const release = trackResource(kind, dir, () => existsSync(dir))
    if (currentResourceTracker() !== undefined) untracks.set(dir, release)
    return dir
  }
  const untrack = (dir: string): void => {
    untracks.get(dir)?.()
    untracks.delete(dir)
  }

  return {
    skillsDir,
    scratchDir,
    async materialize(ref: WorkspaceRef, files, opts = {}) {
      if (opts.signal?.aborted)
        throw new SkillHostError('E_ABORTED', 'Materialization was aborted.')
      const root = join(
        skillsDir,
        `${segment(ref.id)}-${segment(ref.version)}-${randomBytes(6).toString('hex')}`,
      )
      const blocked = await untraversableAncestor(skillsDir, share).catch(() => undefined)
      if (blocked !== undefined) {
        throw new SkillHostError(
          'E_SKILL_WORKSPACE_FAILED',
          `Skill '${ref.id}' cannot be materialized where the sandbox can read it: a folder above the host's skill copies is not traversable by the sandbox user; the host operator must fix its permissions.`,
          {
            person: `Skill '${ref.id}' cannot be materialized where the sandbox can read it: ${blocked}.`,
          },
        )
      }
      try {
        await mkdir(root, { mode: 0o700 })
        await own(root, modes.dir)
        const budget = { left: maxTotal }
        for await (const file of files) {
          if (opts.signal?.aborted)
            throw new SkillHostError('E_ABORTED', 'Materialization was aborted.')
          await writeFile(root, file, budget, opts.signal)
        }
      } catch (cause) {
        await removeTree(root).catch(() => undefined)
        if (SkillHostError.isInstance(cause)) throw cause
        throw failed(`Skill '${ref.id}' could not be materialized.`, cause)
      }
      return track('skill-copy', root)
    },
    async dispose(root) {
      const path = normalizeAbsolutePath(root)
      if (path === undefined || !isPathInside(path, skillsDir) || path === skillsDir) {
        throw failed('dispose() was given a path that is not a skill copy of this store.')
      }
      try {
        await removeTree(path)
      } catch (cause) {
        throw failed('A skill copy could not be removed.', cause)
      }
      untrack(path)
    },
    async createScratch() {
      try {
        return track('scratch', await mkdtemp(join(scratchDir, 'call-')))
      } catch (cause) {
        throw failed('A scratch directory could not be created.', cause)
      }
    },
    async disposeScratch(dir) {
      const path = normalizeAbsolutePath(dir)
      if (path === undefined || !isPathInside(path, scratchDir) || path === scratchDir) {
        throw failed('disposeScratch() was given a path this store did not create.')
      }
      try {
        await removeTree(path)
      } catch (cause) {
        throw failed('A scratch directory could not be removed.', cause)
      }
      untrack(path)
    },
  }
}
