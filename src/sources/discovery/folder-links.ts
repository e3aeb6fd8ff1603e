import { isInside } from './scan-skill-folder.js'

/** Why a symlink to a folder is not followed, model-safe; `undefined` means follow it. */
export type LinkVerdict = string | undefined

/**
 * Which symlinked folders one root's walk follows: each target once, never a
 * target that holds the link (a loop), nor one inside the root itself or
 * inside a target already followed (both searched anyway). Targets and
 * folders are canonical paths. Judged in walk order, so the verdicts are the
 * same for either discovery driver.
 */
export class FolderLinks {
  readonly #rootReal: string
  /** Followed targets, with the root-relative path of the link that led there. */
  readonly #followed = new Map<string, string>()

  constructor(rootReal: string) {
    this.#rootReal = rootReal
  }

  /** Decides on the link at `linkRel` in the folder `folderReal`, leading to `target`. */
  judge(linkRel: string, target: string, folderReal: string): LinkVerdict {
    if (isInside(target, folderReal))
      return 'The folder is a symlink to a folder that holds it (a loop); not followed.'
    if (isInside(this.#rootReal, target))
      return 'The folder is a symlink to a folder inside this root, which is searched there; not followed.'
    for (const [followed, via] of this.#followed) {
      if (isInside(followed, target))
        return `The folder is a symlink into ${via}, which is already searched; not followed.`
    }
    this.#followed.set(target, linkRel)
    return undefined
  }
}
