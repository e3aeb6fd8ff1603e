import { SkillHostError } from '../../../common/errors.js'
import { blockedAncestor, type HostIdentity, NOBODY } from '../sandbox/sandbox-host-user.js'

/**
 * How the host makes a new file or folder in a workspace so that the identity
 * scripts run as can use it: the owner and group to give it (-1 keeps this
 * process's) and its mode, set explicitly whatever the umask.
 */
export interface NewEntryOwner {
  readonly uid: number
  readonly gid: number
  readonly file: number
  readonly dir: number
}

/** New entries for a sandbox that runs as this process: private to it. */
export const PRIVATE_ENTRIES: NewEntryOwner = { uid: -1, gid: -1, file: 0o600, dir: 0o700 }

/** New entries group-shared with a distinct sandbox identity (a host-made workspace). */
export function groupShared(identity: HostIdentity): NewEntryOwner {
  return { uid: -1, gid: identity.gid, file: 0o660, dir: 0o770 }
}

/**
 * Who scripts run as in a deployer's folder, and how the host makes entries
 * there; nothing about the folder itself is changed. With no distinct sandbox
 * identity (the host is not root) scripts run as this process. Otherwise, in
 * a folder a regular user owns, scripts run as that owner (with the sandbox's
 * group, which reads the skill copies) so they write as the user, and the
 * host's new entries are the user's too; a folder owned by root is used as
 * `sandboxUser` (scripts never run as host root: an escape would land there,
 * and the kernel does not apply RLIMIT_NPROC to uid 0).
 */
export function deployerFolderIdentity(
  st: { uid: number; gid: number },
  sandboxUser: HostIdentity | undefined,
): {
  runAs: HostIdentity | undefined
  entries: NewEntryOwner
  advice: string
  /** Set for a root-owned folder, so a front end can name its own fix (`data` of the refusal). */
  rootOwned?: true
} {
  if (sandboxUser === undefined) {
    return { runAs: undefined, entries: PRIVATE_ENTRIES, advice: '' }
  }
  if (st.uid !== 0) {
    return {
      runAs: { uid: st.uid, gid: sandboxUser.gid },
      entries: { uid: st.uid, gid: st.gid, file: 0o600, dir: 0o700 },
      advice: `Scripts run as the folder's owner (uid ${st.uid}); give a folder its owner can reach and write.`,
    }
  }
  return {
    runAs: sandboxUser,
    entries: groupShared(sandboxUser),
    advice: `The folder belongs to root and scripts never run as root, so they would run as uid ${sandboxUser.uid}${sandboxUser.uid === NOBODY.uid ? ' (nobody)' : ''}. Give a folder that a regular user owns (scripts then run as that user, and what they write is theirs), or one made for scripts (install -d -o ${sandboxUser.uid} -m 700 DIR), or leave the workspace folder out for a private workspace per conversation.`,
    rootOwned: true,
  }
}

/**
 * Throws `E_SKILL_WORKSPACE_FAILED`, with `advice` and `data` (plus `runAs`,
 * the uid scripts run as), unless `identity` can reach (every ancestor
 * searchable) and write `dir`; the blocking ancestor's host path stays in
 * the cause. No identity: the sandbox runs as the host user, nothing to check.
 */
export async function assertReachable(
  dir: string,
  identity: HostIdentity | undefined,
  st: { uid: number; gid: number; mode: number },
  advice: string,
  data: Readonly<Record<string, unknown>> = {},
): Promise<void> {
  if (identity === undefined) return
  const blocked = await blockedAncestor(dir, identity)
  if (blocked !== undefined) {
    const closed = `an enclosing folder (mode ${blocked.mode.toString(8)}) is closed to it`
    throw new SkillHostError(
      'E_SKILL_WORKSPACE_FAILED',
      `The sandbox (uid ${identity.uid}) cannot reach the session workspace: ${closed}. ${advice}`,
      {
        cause: new Error(`uid ${identity.uid} cannot traverse ${blocked.path}`),
        data: { ...data, runAs: identity.uid },
        // The person at the terminal may see the host path; the model never does.
        person: `The sandbox (uid ${identity.uid}) cannot reach the session workspace: ${blocked.path} (mode ${blocked.mode.toString(8)}) is closed to it. ${advice}`,
      },
    )
  }
  const bits = st.uid === identity.uid ? 0o300 : st.gid === identity.gid ? 0o030 : 0o003
  if ((st.mode & bits) !== bits) {
    throw new SkillHostError(
      'E_SKILL_WORKSPACE_FAILED',
      `The sandbox (uid ${identity.uid}) cannot write the session workspace (mode ${(st.mode & 0o777).toString(8)}). ${advice}`,
      { data: { ...data, runAs: identity.uid, mode: st.mode & 0o777 } },
    )
  }
}
