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

/** Options of `createDirectoryWorkspace` (the skill copies' maker in a directory; the public name is the reference documents' word). */
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
 * only the skill copies this maker made (idempotent).
 */
export async function createDirectoryWorkspace(
  options: DirectoryWorkspaceOptions,
): Promise<DirectoryWorkspace> {
  const place = await makePlace(options)
  const { skillsDir, scratchDir } = place
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
      return track('skill-copy', await writeSkillCopy(place, ref, files, opts.signal))
    },
    async dispose(root) {
      await removeMade(
        root,
        skillsDir,
        'dispose() was given a path that is not a skill copy of this store.',
        'A skill copy could not be removed.',
      )
      untrack(normalizeAbsolutePath(root) as string)
    },
    async createScratch() {
      try {
        return track('scratch', await mkdtemp(join(scratchDir, 'call-')))
      } catch (cause) {
        throw failed('A scratch directory could not be created.', cause)
      }
    },
    async disposeScratch(dir) {
      await removeMade(
        dir,
        scratchDir,
        'disposeScratch() was given a path this store did not create.',
        'A scratch directory could not be removed.',
      )
      untrack(normalizeAbsolutePath(dir) as string)
    },
  }
}

/** Removes `path`, a folder this store made below `parent`; anything else is refused. */
async function removeMade(path: string, parent: string, notOurs: string, failedToRemove: string) {
  const real = normalizeAbsolutePath(path)
  if (real === undefined || !isPathInside(real, parent) || real === parent) throw failed(notOurs)
  try {
    await removeTree(real)
  } catch (cause) {
    throw failed(failedToRemove, cause)
  }
}

/** Where and how this store writes: its folders, the sandbox identity sharing them, the caps. */
interface CopyPlace {
  readonly skillsDir: string
  readonly scratchDir: string
  readonly share: HostIdentity | undefined
  readonly modes: typeof SHARED_MODES | typeof PRIVATE_MODES
  readonly maxFile: number
  readonly maxTotal: number
}

async function makePlace(options: DirectoryWorkspaceOptions): Promise<CopyPlace> {
  const base = normalizeAbsolutePath(options.baseDir)
  if (base === undefined) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      'The skill copies baseDir must be an absolute path.',
    )
  }
  const share = resolveSandboxHostUser(options.sandboxUser)
  const modes = share === undefined ? PRIVATE_MODES : SHARED_MODES
  const place = {
    share,
    modes,
    maxFile: options.maxFileBytes ?? 16 * 1024 * 1024,
    maxTotal: options.maxTotalBytes ?? 64 * 1024 * 1024,
  }
  try {
    await mkdir(base, { recursive: true, mode: 0o700 })
    const real = await realpath(base)
    await own(place, real, modes.traverse)
    const skillsDir = join(real, 'skills')
    const scratchDir = join(real, 'scratch')
    for (const dir of [skillsDir, scratchDir]) {
      await mkdir(dir, { recursive: true, mode: 0o700 })
      await own(place, dir, modes.traverse)
    }
    return { ...place, skillsDir, scratchDir }
  } catch (cause) {
    throw failed('The skill copies directory could not be created.', cause)
  }
}

/** Modes are set explicitly after each create: the umask must not widen or narrow them. */
async function own(place: Pick<CopyPlace, 'share'>, path: string, mode: number): Promise<void> {
  if (place.share !== undefined) await chown(path, -1, place.share.gid)
  await chmod(path, mode)
}

function aborted(): SkillHostError {
  return new SkillHostError('E_ABORTED', 'Materialization was aborted.')
}

/** One skill copy: a fresh root the sandbox identity can reach, every file written into it. */
async function writeSkillCopy(
  place: CopyPlace,
  ref: WorkspaceRef,
  files: Iterable<WorkspaceFile> | AsyncIterable<WorkspaceFile>,
  signal: AbortSignal | undefined,
): Promise<string> {
  if (signal?.aborted) throw aborted()
  const { skillsDir } = place
  const root = join(
    skillsDir,
    `${segment(ref.id)}-${segment(ref.version)}-${randomBytes(6).toString('hex')}`,
  )
  const blocked = await untraversableAncestor(skillsDir, place.share).catch(() => undefined)
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
    await own(place, root, place.modes.dir)
    const budget = { left: place.maxTotal }
    for await (const file of files) {
      if (signal?.aborted) throw aborted()
      await writeFile(place, root, file, budget, signal)
    }
  } catch (cause) {
    await removeTree(root).catch(() => undefined)
    if (SkillHostError.isInstance(cause)) throw cause
    throw failed(`Skill '${ref.id}' could not be materialized.`, cause)
  }
  return root
}

/** One file of a skill copy: its folders made (never through a symlink), its bytes within the caps. */
async function writeFile(
  place: CopyPlace,
  root: string,
  file: WorkspaceFile,
  budget: { left: number },
  signal?: AbortSignal,
) {
  const { modes, maxFile, maxTotal } = place
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
    if (made) await own(place, dir, modes.dir)
  }
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
  const handle = await open(join(root, rel), flags, 0o600)
  try {
    if (place.share !== undefined) await handle.chown(-1, place.share.gid)
    await handle.chmod(modes.file)
    let size = 0
    for await (const chunk of chunksOf(await file.read())) {
      if (signal?.aborted) throw aborted()
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
