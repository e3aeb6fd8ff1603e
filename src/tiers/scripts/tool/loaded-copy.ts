import type { PolicyGrant } from '../policy/policy.js'

/**
 * A loaded skill version's materialized copy and what its approved
 * permission request adds to every call of that version: declared tools,
 * `run_<skill>_script` and dynamic-context commands alike.
 */
export interface LoadedCopy {
  /** The copy's root on the host, bound read-only at `/skill`. */
  readonly root: string
  /** The skill's files, relative to `root`. */
  readonly paths: readonly string[]
  /** Paths the gate approved beyond the derived policy; absent when none. */
  readonly granted?: PolicyGrant
}
