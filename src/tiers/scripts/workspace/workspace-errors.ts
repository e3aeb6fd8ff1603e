import { SkillHostError } from '../../../common/errors.js'

/** Deepest folder the host walks; a deeper tree cannot be measured, so it counts as full. */
export const WORKSPACE_MAX_DEPTH = 256

/** `E_SKILL_WORKSPACE_FAILED`: the host could not do what it tried (the cause stays host-side). */
export function failed(message: string, cause?: unknown): SkillHostError {
  return new SkillHostError('E_SKILL_WORKSPACE_FAILED', message, { cause })
}

/** `E_SKILL_SOURCE_PATH_REJECTED` for a path the model or host named, quoted and cut. */
export function rejected(path: unknown, why: string): SkillHostError {
  const text = typeof path === 'string' ? path : `(${typeof path})`
  const shown = JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)
  return new SkillHostError(
    'E_SKILL_SOURCE_PATH_REJECTED',
    `The workspace path ${shown} is rejected: ${why}. Use a relative path inside the workspace, such as 'out/report.pdf'.`,
    { data: { reason: why } },
  )
}

/** A missing folder or file on the way: "no such file" to a reader, nothing to do for a remover. */
export class MissingParent extends SkillHostError {
  constructor(rel: string) {
    super('E_SKILL_WORKSPACE_FAILED', `No file '${rel}' in the workspace.`)
  }
}

/** The refusal for an entry that is not a regular file, naming what it is. */
export function notAFile(
  rel: string,
  st: { isSymbolicLink(): boolean; isFIFO(): boolean; isSocket(): boolean; isDirectory(): boolean },
): SkillHostError {
  const what = st.isSymbolicLink()
    ? 'it is a symlink'
    : st.isFIFO()
      ? 'it is a FIFO'
      : st.isSocket()
        ? 'it is a socket'
        : st.isDirectory()
          ? 'it is a folder'
          : 'it is not a regular file'
  return rejected(rel, what)
}

/** `E_SKILL_WORKSPACE_FULL` for a workspace too large or deep to measure whole. */
export function unmeasurable(maxEntries: number): SkillHostError {
  return new SkillHostError(
    'E_SKILL_WORKSPACE_FULL',
    `The session workspace holds more than ${maxEntries} entries or nests deeper than ${WORKSPACE_MAX_DEPTH} folders, so it cannot be measured and counts as full; delete files you no longer need (or have the host raise sessionWorkspace.maxEntries).`,
    { data: { maxEntries } },
  )
}

/** `E_SKILL_WORKSPACE_FULL` for a workspace that would hold `bytes`. */
export function full(bytes: number, max: number): SkillHostError {
  return new SkillHostError(
    'E_SKILL_WORKSPACE_FULL',
    `The session workspace would hold ${bytes} bytes, over its cap of ${max}; delete files you no longer need (or have the host raise sessionWorkspace.maxBytes).`,
    { data: { bytes, maxBytes: max } },
  )
}
