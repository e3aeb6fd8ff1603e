import type { FileHandle } from 'node:fs/promises'
import { BeneathError, openDirBeneath, openEntry } from '../../../common/door/beneath.js'
import { protectedPart } from '../../../common/door/protected-names.js'
import { SkillHostError } from '../../../common/errors.js'
import { normalizeSkillPath } from '../../../skill-model/skill-path.js'
import type { NewEntryOwner } from './assert-reachable.js'
import { failed, MissingParent, rejected } from './workspace-errors.js'

/** A path the model or host named, by the skill-path rule, or `E_SKILL_SOURCE_PATH_REJECTED`. */
export function workspaceRel(path: string): string {
  try {
    return normalizeSkillPath(path)
  } catch (err) {
    const reason = SkillHostError.isInstance(err) ? String(err.data?.reason ?? 'unsafe') : 'unsafe'
    throw rejected(path, reason.replace('the skill folder itself', 'the workspace itself'))
  }
}

/** A path the host and the model may write or remove: not inside version-control state. */
export function writableRel(path: string): string {
  const rel = workspaceRel(path)
  const part = protectedPart(rel)
  if (part !== undefined) {
    throw rejected(path, `'${part}' is version-control state, read-only to skills and the model`)
  }
  return rel
}

/**
 * The folder `parts` below `root`, opened by descriptor (`openDirBeneath`),
 * with the workspace's refusals: through a symlink or a non-folder is
 * `E_SKILL_SOURCE_PATH_REJECTED`, a missing folder `MissingParent` (unless
 * `create`, which makes it with that owner, group and mode).
 */
export async function openWorkspaceDir(
  root: FileHandle,
  rel: string,
  parts: readonly string[],
  create: NewEntryOwner | undefined,
): Promise<FileHandle> {
  try {
    return await openDirBeneath(
      root,
      parts,
      create === undefined
        ? undefined
        : {
            mode: 0o700,
            made: async (dir) => {
              if (create.uid !== -1 || create.gid !== -1) await dir.chown(create.uid, create.gid)
              await dir.chmod(create.dir)
            },
          },
    )
  } catch (err) {
    if (err instanceof BeneathError) {
      if (err.reason === 'symlink') throw rejected(rel, 'it passes through a symlink')
      if (err.reason === 'not-a-folder') throw rejected(rel, 'a parent is not a folder')
      throw new MissingParent(rel)
    }
    throw failed(`The workspace path '${rel}' could not be reached.`, err)
  }
}

/** The entry `name` of `parent` opened without following a symlink or blocking, with the workspace's refusals. */
export function openWorkspaceEntry(
  parent: FileHandle,
  rel: string,
  name: string,
  flags: number,
): Promise<FileHandle> {
  return openEntry(parent, name, flags).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ELOOP'
      ? rejected(rel, 'it is a symlink')
      : err.code === 'ENXIO'
        ? rejected(rel, 'it is a FIFO')
        : err.code === 'ENOENT'
          ? new MissingParent(rel)
          : failed(`The workspace file '${rel}' could not be opened.`, err)
  })
}
