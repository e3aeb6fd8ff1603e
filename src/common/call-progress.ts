/**
 * What a tool call in progress is doing, in fixed words a client may show
 * (`undefined`: back to plain running). The adapter that reports a call's
 * progress (the MCP server's `trackProgress`) listens.
 */
export type CallProgressNote = (message: string | undefined) => void

/**
 * How the listening adapter finds the call in progress across awaits (the
 * MCP adapter's is an `AsyncLocalStorage`; this file imports no async hooks,
 * so the root entry stays free of them).
 */
export interface CallProgressScope {
  current(): CallProgressNote | undefined
}

let scope: CallProgressScope | undefined

/** Installs the scope `noteCallProgress` asks; the MCP adapter does, once, when it is loaded. */
export function setCallProgressScope(next: CallProgressScope): void {
  scope = next
}

/**
 * Tells the call in progress, if an adapter listens, what it is doing now
 * (a tier building a script's environment). `message` must be skillhost's
 * own fixed words, never a skill's or a package's text; a listener's
 * failure never reaches the caller.
 */
export function noteCallProgress(message: string | undefined): void {
  try {
    scope?.current()?.(message)
  } catch {
    // Progress never fails the work it reports on.
  }
}
