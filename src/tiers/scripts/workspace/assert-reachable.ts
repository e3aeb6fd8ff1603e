import { SkillHostError } from '../../../common/errors.js'
import { type HostIdentity, untraversableAncestor } from '../sandbox/sandbox-host-user.js'
import { failed } from './workspace-errors.js'

/**
 * Throws `E_SKILL_WORKSPACE_FAILED`, saying what to change, unless the
 * sandbox identity can reach (every ancestor traversable) and write `dir`.
 * No identity: the sandbox runs as the host user, nothing to check.
 */
export async function assertReachable(
  dir: string,
  identity: HostIdentity | undefined,
  st: { uid: number; gid: number; mode: number },
): Promise<void> {
  if (identity === undefined) return
  const blocked = await untraversableAncestor(dir, identity)
  if (blocked !== undefined) {
    throw new SkillHostError(
      'E_SKILL_WORKSPACE_FAILED',
      `The sandbox (uid ${identity.uid}) cannot reach the session workspace: a folder above it is not traversable; the host operator must fix its permissions.`,
      { person: `The sandbox cannot reach the session workspace: ${blocked}.` },
    )
  }
  const bits = st.uid === identity.uid ? 0o300 : st.gid === identity.gid ? 0o030 : 0o003
  if ((st.mode & bits) !== bits) {
    throw failed(
      `The sandbox (uid ${identity.uid}) cannot write the session workspace; give it write access (chgrp ${identity.gid} and chmod g+rwx) or run the host as the directory's owner.`,
    )
  }
}
