import { constants } from 'node:fs'
import { chmod, chown, type FileHandle, lstat, realpath } from 'node:fs/promises'
import { SkillHostError } from '../../../common/errors.js'
import type { HostIdentity } from '../sandbox/sandbox-host-user.js'
import {
  assertReachable,
  deployerFolderIdentity,
  groupShared,
  type NewEntryOwner,
  PRIVATE_ENTRIES,
} from './assert-reachable.js'
import { removeTree } from './remove-tree.js'
import { folderLock, type TurnLock } from './turn-lock.js'
import { failed, notAFile } from './workspace-errors.js'
import { openWorkspaceEntry } from './workspace-open.js'

/** A prepared workspace folder: where, whether it is ours, who scripts run as, how new entries are made. */
export interface PreparedWorkspaceFolder {
  readonly path: string
  readonly owned: boolean
  /** The host identity of script calls in this folder; undefined: the handle's own. */
  readonly runAs: HostIdentity | undefined
  readonly entries: NewEntryOwner
  readonly lock: { lock: TurnLock; release: () => void }
}

/**
 * The folder a session workspace uses, checked and prepared: the deployer's
 * `dir` (real path; never chowned or chmodded: `deployerFolderIdentity` says
 * who scripts run as there, and that identity must reach and write it), or
 * a fresh private one from `privateDir`, group-shared with `sandboxUser`
 * (removed again if it cannot be prepared); with the folder's one lock.
 */
export async function prepareWorkspaceFolder(options: {
  readonly dir?: string
  readonly privateDir?: () => Promise<string>
  readonly sandboxUser?: HostIdentity
}): Promise<PreparedWorkspaceFolder> {
  if (options.dir !== undefined) {
    const real = await realpath(options.dir).catch((cause: unknown) => {
      throw failed('The session workspace directory does not exist.', cause)
    })
    const st = await lstat(real)
    if (!st.isDirectory()) throw failed('The session workspace is not a directory.')
    const { runAs, entries, advice, rootOwned } = deployerFolderIdentity(st, options.sandboxUser)
    await assertReachable(real, runAs, st, advice, rootOwned ? { folder: 'root-owned' } : {})
    return { path: real, owned: false, runAs, entries, lock: folderLock(st) }
  }
  if (options.privateDir === undefined) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      'A session workspace needs a directory or a way to make a private one.',
    )
  }
  const dir = await realpath(await options.privateDir())
  try {
    const share = options.sandboxUser
    // Host-made: the one kind of folder whose group and mode the host sets.
    if (share !== undefined) await chown(dir, -1, share.gid)
    await chmod(dir, share === undefined ? 0o700 : 0o770)
    const st = await lstat(dir)
    await assertReachable(dir, share, st, "Check the permissions of the sandbox's base directory.")
    return {
      path: dir,
      owned: true,
      runAs: share,
      entries: share === undefined ? PRIVATE_ENTRIES : groupShared(share),
      lock: folderLock(st),
    }
  } catch (err) {
    await removeTree(dir).catch(() => undefined)
    throw SkillHostError.isInstance(err)
      ? err
      : failed('The session workspace could not be prepared.', err)
  }
}

/**
 * Writes `bytes` as the entry `name` of the held folder `parent`: created
 * or truncated, never through a symlink, never onto a FIFO, socket or folder
 * (checked with `fstat` on the opened descriptor). A file it creates gets
 * `owner`'s owner, group and mode (plus executable bits when `executable`);
 * an existing file keeps its own, as a user's file in a deployer's folder must.
 */
export async function writeWorkspaceFile(
  parent: FileHandle,
  rel: string,
  name: string,
  bytes: Uint8Array,
  owner: NewEntryOwner,
  executable = false,
): Promise<void> {
  const create = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL
  let made = true
  const handle = await openWorkspaceEntry(parent, rel, name, create).catch((err: unknown) => {
    if ((err as { cause?: NodeJS.ErrnoException }).cause?.code !== 'EEXIST') throw err
    made = false
    return openWorkspaceEntry(parent, rel, name, constants.O_WRONLY)
  })
  try {
    const st = await handle.stat()
    if (!st.isFile()) throw notAFile(rel, st)
    await handle.truncate(0)
    if (made) {
      if (owner.uid !== -1 || owner.gid !== -1) await handle.chown(owner.uid, owner.gid)
      // Executable where readable: 0o660 becomes 0o770, 0o600 becomes 0o700.
      await handle.chmod(executable ? owner.file | ((owner.file & 0o444) >> 2) : owner.file)
    }
    await handle.writeFile(bytes)
  } finally {
    await handle.close()
  }
}
