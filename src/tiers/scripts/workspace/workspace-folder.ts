import { constants } from 'node:fs'
import { chmod, chown, type FileHandle, lstat, realpath } from 'node:fs/promises'
import { SkillHostError } from '../../../common/errors.js'
import type { HostIdentity } from '../sandbox/sandbox-host-user.js'
import { assertReachable } from './assert-reachable.js'
import { removeTree } from './remove-tree.js'
import { folderLock, type TurnLock } from './turn-lock.js'
import { failed, notAFile } from './workspace-errors.js'
import { openWorkspaceEntry } from './workspace-open.js'

/**
 * The folder a session workspace uses, checked and prepared: the deployer's
 * `dir` (real path, a folder the sandbox identity can reach and write), or a
 * fresh private one from `privateDir`, group-shared with `sandboxUser` (removed
 * again if it cannot be prepared); with the folder's one lock.
 */
export async function prepareWorkspaceFolder(options: {
  readonly dir?: string
  readonly privateDir?: () => Promise<string>
  readonly sandboxUser?: HostIdentity
}): Promise<{ path: string; owned: boolean; lock: { lock: TurnLock; release: () => void } }> {
  if (options.dir !== undefined) {
    const real = await realpath(options.dir).catch((cause: unknown) => {
      throw failed('The session workspace directory does not exist.', cause)
    })
    const st = await lstat(real)
    if (!st.isDirectory()) throw failed('The session workspace is not a directory.')
    await assertReachable(real, options.sandboxUser, st)
    return { path: real, owned: false, lock: folderLock(st) }
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
    if (share !== undefined) await chown(dir, -1, share.gid)
    await chmod(dir, share === undefined ? 0o700 : 0o770)
    const st = await lstat(dir)
    await assertReachable(dir, share, st)
    return { path: dir, owned: true, lock: folderLock(st) }
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
 * (checked with `fstat` on the opened descriptor), mode 0600 (0660 and the
 * sandbox's group when `share` is set).
 */
export async function writeWorkspaceFile(
  parent: FileHandle,
  rel: string,
  name: string,
  bytes: Uint8Array,
  share: HostIdentity | undefined,
): Promise<void> {
  const handle = await openWorkspaceEntry(parent, rel, name, constants.O_WRONLY | constants.O_CREAT)
  try {
    const st = await handle.stat()
    if (!st.isFile()) throw notAFile(rel, st)
    await handle.truncate(0)
    if (share !== undefined) await handle.chown(-1, share.gid)
    await handle.chmod(share === undefined ? 0o600 : 0o660)
    await handle.writeFile(bytes)
  } finally {
    await handle.close()
  }
}
