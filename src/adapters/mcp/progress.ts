import { AsyncLocalStorage } from 'node:async_hooks'
import { type CallProgressNote, setCallProgressScope } from '../../common/internal.js'

/** A request's progress token, as the client sent it in `_meta.progressToken`. */
export type ProgressToken = string | number

/** Sends one `notifications/progress` on the stream of the request it belongs to. */
export type SendProgress = (notification: {
  method: 'notifications/progress'
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string }
}) => Promise<void>

/**
 * How often a call still running reports progress: once a second, so a
 * client that resets its request timeout on progress (the SDK's
 * `resetTimeoutOnProgress`) keeps waiting for a long script, provisioning
 * or discovery, and a person sees it is alive.
 */
export const PROGRESS_INTERVAL_MS = 1000

/** One call's progress reports; `finish` sends the last one. */
export interface CallProgress {
  /**
   * Runs the call's work so that what it awaits can say what it is doing
   * (`noteCallProgress`: "building a python environment"), reported at once
   * and by every periodic report until it says `undefined` again.
   */
  run<T>(fn: () => T): T
  /** Stops the periodic reports and sends the final one (`progress === total`). Idempotent. */
  finish(ok: boolean): Promise<void>
}

const NONE: CallProgress = Object.freeze({
  run: <T>(fn: () => T): T => fn(),
  finish: () => Promise.resolve(),
})

// The call in progress across awaits, for `noteCallProgress` (common/call-progress.ts).
const calls = new AsyncLocalStorage<CallProgressNote>()
setCallProgressScope({ current: () => calls.getStore() })

/**
 * Reports a tool call's progress when the client asked for it (sent a
 * progress token); without a token, nothing is sent. `started` at once,
 * then `running` every `intervalMs` while the call runs, then `finished`
 * (or `failed`) with `total` equal to the last `progress`, so a client can
 * tell the end. Progress is a count of reports, strictly increasing as the
 * spec requires; skillhost cannot know how far a script has got, so there
 * is no `total` before the end. Messages are fixed words, never a tool's or
 * a skill's text. Reports go out one after another, in order, and one that
 * cannot be sent is dropped: progress never fails a call.
 */
export function trackProgress(
  token: ProgressToken | undefined,
  send: SendProgress,
  intervalMs: number = PROGRESS_INTERVAL_MS,
): CallProgress {
  if (token === undefined) return NONE
  let progress = 0
  let chain: Promise<void> = Promise.resolve()
  const report = (message: string, total?: number): Promise<void> => {
    const params = {
      progressToken: token,
      progress,
      ...(total === undefined ? {} : { total }),
      message,
    }
    progress += 1
    chain = chain.then(() => send({ method: 'notifications/progress', params })).catch(() => {})
    return chain
  }
  void report('started')
  let doing: string | undefined
  const timer = setInterval(() => void report(doing ?? 'running'), intervalMs)
  // A report never keeps the process alive on its own.
  timer.unref?.()
  let finished: Promise<void> | undefined
  const note: CallProgressNote = (message) => {
    if (finished || message === doing) return
    doing = message
    void report(message ?? 'running')
  }
  return {
    run: (fn) => calls.run(note, fn),
    finish: (ok) => {
      if (finished) return finished
      clearInterval(timer)
      finished = report(ok ? 'finished' : 'failed', progress)
      return finished
    },
  }
}
