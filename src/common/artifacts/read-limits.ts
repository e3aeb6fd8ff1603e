/**
 * The caps every artifact read obeys. A model can ask for less, never for
 * more: a reader clamps what it is asked to these numbers and says so in its
 * result, so one call can never flood the context window.
 */
export const ARTIFACT_READ_LIMITS = Object.freeze({
  /** Lines returned when a call does not say how many. */
  defaultLines: 200,
  /** Most lines one call returns. */
  maxLines: 2_000,
  /** Most UTF-8 bytes of content one call returns (16 KiB). */
  maxBytes: 16 * 1024,
  /** Longest grep pattern accepted, literal or regex. */
  maxPatternLength: 256,
  /** Most bytes of text a grep scans (4 MiB); the rest is reported as not scanned. */
  maxScanBytes: 4 * 1024 * 1024,
  /** Matches a grep returns when the call does not say. */
  defaultMaxMatches: 50,
  /** Most matches a grep returns. */
  maxMatches: 500,
  /** Most context lines around each grep match. */
  maxContextLines: 10,
  /** Longest single line a grep shows; longer lines are cut with an ellipsis. */
  maxShownLineLength: 500,
  /** Most headings an outline lists. */
  maxOutlineEntries: 300,
  /** Longest JSON path query accepted. */
  maxJsonPathLength: 512,
  /** Largest artifact parsed as JSON (32 MiB). */
  maxJsonBytes: 32 * 1024 * 1024,
})

/** The shape of `ARTIFACT_READ_LIMITS`. */
export type ArtifactReadLimits = typeof ARTIFACT_READ_LIMITS
