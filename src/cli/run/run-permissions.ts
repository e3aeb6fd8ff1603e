import { quoteName } from '../../common/index.js'
import { isHostPermissionPath } from '../../manifest/index.js'
import type { SkillPermissionRequest } from '../../sources/index.js'
import { isPathInside } from '../../tiers/scripts/internal.js'

/**
 * What `skillhost run` tells the person at the terminal about a skill's
 * permission request, or undefined when there is nothing to say. `run` asks
 * no gate and grants no request: the person grants by flags. A requested
 * read inside a `--read-path` folder is readable already; any other read is
 * named with the flag that would allow it; a write is named with
 * `--workspace`, the one folder `run` lets a script write; network is never
 * granted. Each path is quoted (`quoteName`): the skill chose it.
 */
export function runPermissionNote(
  request: SkillPermissionRequest | undefined,
  readPaths: readonly string[],
): string | undefined {
  if (request === undefined) return undefined
  const hostReads = request.read.filter(isHostPermissionPath)
  const missing = hostReads.filter((p) => !readPaths.some((dir) => isPathInside(p, dir)))
  const writes = request.write.filter(isHostPermissionPath)
  const parts = [
    ...missing.map((p) => `read ${quoteName(p)} (not given: --read-path ${quoteName(p)} gives it)`),
    ...writes.map(
      (p) =>
        `write ${quoteName(p)} (not given: run lets scripts write only /work, --workspace DIR)`,
    ),
    ...(request.network ? ['network (never given)'] : []),
  ]
  if (parts.length === 0) return undefined
  return `[skillhost run: the skill requests ${parts.join('; ')}]\n`
}
