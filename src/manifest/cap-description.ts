import { MANIFEST_LIMITS } from './validate-skill-manifest.js'

/**
 * The most characters (UTF-16 code units) of a skill description the model
 * ever sees: the agentskills.io limit. A longer description is a spec warning
 * at discovery and is cut to this length wherever it is shown to a model.
 */
export const MAX_DESCRIPTION_CHARS: number = MANIFEST_LIMITS.description

/** What a cut text ends with, so the reader can see it was cut. */
export const TRUNCATION_MARK = '…'

/**
 * `text` cut to at most `max` UTF-16 code units, ending in `…` when it was
 * cut. The cut falls on a code-point boundary (never between the two halves
 * of a surrogate pair), so the result is always well-formed UTF-16.
 */
export function capDescription(text: string, max: number = MAX_DESCRIPTION_CHARS): string {
  if (text.length <= max) return text
  let end = Math.max(0, max - TRUNCATION_MARK.length)
  const last = text.charCodeAt(end - 1)
  // A high surrogate just before the cut would be left without its partner.
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return `${text.slice(0, end).trimEnd()}${TRUNCATION_MARK}`
}
