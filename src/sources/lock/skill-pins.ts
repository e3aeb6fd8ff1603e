import { SkillHostError } from '../../common/errors.js'
import type { SkillFolderScan } from '../discovery/scan-skill-folder.js'
import type { SkillProblem } from '../types.js'
import type { DigestRunner, FileDigests, SkillDigests } from './skill-digests.js'
import type { SkillLock } from './skill-lock.js'

/**
 * A served skill's standing against the lockfile in force: `pinned` (its
 * content is what the lock pins) or `changed-since-pinned` (it is listed, but
 * refuses to load with `E_SKILL_NOT_PINNED` until pinned again). `digest` is
 * the content's digest now; `pinnedDigest` the one the lock holds.
 */
export type SkillPin =
  | { readonly state: 'pinned'; readonly digest: string }
  | {
      readonly state: 'changed-since-pinned'
      readonly digest: string
      readonly pinnedDigest: string
    }

/** The one code for a skill the lock does not let load, and the text saying why. */
export function notPinnedError(id: string, pin: SkillPin | undefined): SkillHostError {
  if (pin === undefined) {
    return new SkillHostError(
      'E_SKILL_NOT_PINNED',
      `Skill "${id}" is not in the lockfile in force, so it is not served; the deployer pins it with skillhost lock.`,
      { data: { id, reason: 'not-in-lock' } },
    )
  }
  const pinned = pin.state === 'changed-since-pinned' ? pin.pinnedDigest : pin.digest
  return new SkillHostError(
    'E_SKILL_NOT_PINNED',
    `Skill "${id}" changed since it was pinned (pinned ${pinned}, now ${pin.digest}); it will not load until the deployer pins it again with skillhost lock.`,
    { data: { id, reason: 'changed-since-pinned', pinnedDigest: pinned, digest: pin.digest } },
  )
}

/**
 * A lockfile in force for one source. Digests come from the source's
 * `SkillDigests`, so each is computed for one scan identity and reused only
 * for it; every digest taken under a lock keeps each file's own hash from
 * the same reads, which a load then holds every byte it reads to.
 */
export class SkillPins {
  readonly lock: SkillLock
  readonly #digests: SkillDigests

  constructor(lock: SkillLock, digests: SkillDigests) {
    this.lock = lock
    this.#digests = digests
  }

  /** Skill `id`'s standing for this scan, or undefined when the lock does not hold `id`. */
  async pin(
    id: string,
    dir: string,
    scan: SkillFolderScan,
    run?: DigestRunner,
    known?: ReadonlyMap<string, Uint8Array>,
  ): Promise<SkillPin | undefined> {
    const pinned = this.lock.skills.get(id)
    if (pinned === undefined) return undefined
    // With the per-file hashes, so the first load reads nothing again to check its bytes.
    const { digest } = await this.#digests.fileDigests(dir, scan, run, known)
    return digest === pinned.digest
      ? { state: 'pinned', digest }
      : { state: 'changed-since-pinned', digest, pinnedDigest: pinned.digest }
  }

  /** Throws `E_SKILL_NOT_PINNED` unless this scan's content is exactly what the lock pins for `id`. */
  async verify(id: string, dir: string, scan: SkillFolderScan): Promise<void> {
    const pin = await this.pin(id, dir, scan)
    if (pin?.state !== 'pinned') throw notPinnedError(id, pin)
  }

  /**
   * Each file's SHA-256 for a scan whose content is exactly what the lock
   * pins for `id`, taken from the same reads as the digest checked against
   * the lock; throws `E_SKILL_NOT_PINNED` otherwise. What a locked skill's
   * module graph is held to (see `pinned-imports.ts`).
   */
  async pinnedFiles(id: string, dir: string, scan: SkillFolderScan): Promise<FileDigests> {
    const pinned = this.lock.skills.get(id)
    if (pinned === undefined) throw notPinnedError(id, undefined)
    const found = await this.#digests.fileDigests(dir, scan)
    if (found.digest !== pinned.digest) {
      throw notPinnedError(id, {
        state: 'changed-since-pinned',
        digest: found.digest,
        pinnedDigest: pinned.digest,
      })
    }
    return found
  }

  /**
   * Discovery's verdict on a skill about to be served: its `SkillPin`, or
   * undefined when it must not be served (not in the lock, or its content
   * could not be hashed). Reports the problem for every skill that is not
   * `pinned` (see `pinProblem`).
   */
  async admit(
    id: string,
    dir: string,
    scan: SkillFolderScan,
    where: { readonly location: string; readonly hostPath: string },
    report: (problem: SkillProblem) => void,
    run?: DigestRunner,
    known?: ReadonlyMap<string, Uint8Array>,
  ): Promise<SkillPin | undefined> {
    let pin: SkillPin | undefined
    try {
      pin = await this.pin(id, dir, scan, run, known)
    } catch (err) {
      const e = SkillHostError.isInstance(err) ? err : undefined
      report({
        ...where,
        id,
        code: e?.code ?? 'E_SKILL_SOURCE_FAILED',
        message: `The skill's content could not be checked against the lockfile: ${e?.message ?? 'a file could not be read.'}`,
        severity: 'error',
      })
      return undefined
    }
    const problem = pinProblem(id, pin, where)
    if (problem) report(problem)
    return pin
  }
}

/**
 * The catalog problem for a skill the lock does not serve as is: not in the
 * lock (an error: the skill is not served) or changed since pinned (a
 * warning: the skill is listed with its `pin`, and refuses to load).
 */
export function pinProblem(
  id: string,
  pin: SkillPin | undefined,
  where: { readonly location: string; readonly hostPath: string },
): SkillProblem | undefined {
  if (pin?.state === 'pinned') return undefined
  return {
    ...where,
    id,
    code: 'E_SKILL_NOT_PINNED',
    message: notPinnedError(id, pin).message,
    severity: pin === undefined ? 'error' : 'warning',
  }
}
