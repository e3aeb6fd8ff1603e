import { type QuickJSContext, type QuickJSHandle, Scope } from 'quickjs-emscripten-core'
import type { GuestPrelude } from './guest-prelude.js'
import type { GuestConsoleEntry } from './types.js'

// A single console argument is cut here before the byte budget applies.
const MAX_LINE_UNITS = 64 * 1024

const LEVELS: readonly GuestConsoleEntry['level'][] = ['log', 'info', 'warn', 'error', 'debug']

/**
 * Console lines a guest wrote, kept within an entry count and a byte budget.
 * Once either cap is reached every later line is dropped unread, so a log
 * flood costs the host nothing but the guest's own CPU time.
 */
export class ConsoleCapture {
  readonly entries: GuestConsoleEntry[] = []
  truncated = false
  #bytesLeft: number
  readonly #maxEntries: number

  constructor(maxEntries: number, maxBytes: number) {
    this.#maxEntries = maxEntries
    this.#bytesLeft = maxBytes
  }

  /** UTF-8 bytes still free; a line longer than this is cut. */
  get bytesLeft(): number {
    return this.#bytesLeft
  }

  /** True when no further line can be kept. */
  get full(): boolean {
    return this.entries.length >= this.#maxEntries || this.#bytesLeft <= 0
  }

  /** Keeps `text`, cut to the remaining byte budget. */
  push(level: GuestConsoleEntry['level'], text: string): void {
    if (this.full) {
      this.truncated = true
      return
    }
    let kept = text
    const bytes = Buffer.byteLength(kept)
    if (bytes > this.#bytesLeft) {
      kept = Buffer.from(kept)
        .subarray(0, this.#bytesLeft)
        .toString()
        .replace(/\uFFFD$/, '')
      this.truncated = true
    }
    this.#bytesLeft -= Math.min(bytes, this.#bytesLeft)
    this.entries.push({ level, text: kept })
  }
}

/**
 * Defines `console.log/info/warn/error/debug` in the guest, writing into the
 * capture `sink` returns at the time of the call (the context is prepared
 * before the evaluation that owns it is known; until then lines are dropped,
 * and only trusted host code runs). Values are formatted inside the guest;
 * strings longer than the remaining budget are cut inside the guest before
 * they are copied out.
 */
export function installConsole(
  ctx: QuickJSContext,
  prelude: GuestPrelude,
  sink: () => ConsoleCapture | undefined,
): void {
  const write = (level: GuestConsoleEntry['level'], args: QuickJSHandle[]) => {
    const capture = sink()
    if (!capture) return
    if (capture.full) {
      capture.truncated = true
      return
    }
    const parts: string[] = []
    // Each UTF-16 unit is at least one byte: stop reading arguments once
    // the line cannot fit, so `console.log(...hugeArray)` copies little.
    let room = capture.bytesLeft
    for (const arg of args) {
      if (room <= 0) break
      // One scope per argument: each formatted text is freed before the next.
      const part = Scope.withScope((scope) => {
        const result = scope.manage(ctx.callFunction(prelude.format, ctx.undefined, arg))
        if (result.error) return undefined
        return readBoundedString(ctx, prelude, result.value, Math.min(room, MAX_LINE_UNITS))
      })
      if (part === undefined) {
        parts.push('[unprintable]')
        continue
      }
      parts.push(part)
      room -= part.length + 1
    }
    capture.push(level, parts.join(' '))
  }
  Scope.withScope((scope) => {
    const consoleObject = scope.manage(ctx.newObject())
    for (const level of LEVELS) {
      const fn = scope.manage(
        ctx.newFunction(level, (...args: QuickJSHandle[]) => write(level, args)),
      )
      ctx.setProp(consoleObject, level, fn)
    }
    ctx.defineProp(ctx.global, 'console', {
      value: consoleObject,
      configurable: true,
      enumerable: false,
    })
  })
}

/**
 * Copies a guest string out, reading at most `maxUnits` UTF-16 units: a
 * guest string of many megabytes is never copied whole into the host.
 */
export function readBoundedString(
  ctx: QuickJSContext,
  prelude: GuestPrelude,
  handle: QuickJSHandle,
  maxUnits: number,
): string {
  if (ctx.typeof(handle) !== 'string') return ''
  if ((ctx.getLength(handle) ?? 0) <= maxUnits) return ctx.getString(handle)
  return Scope.withScope((scope) => {
    const limit = scope.manage(ctx.newNumber(maxUnits))
    const cut = scope.manage(ctx.callFunction(prelude.cut, ctx.undefined, handle, limit))
    if (cut.error) return ''
    const ok = ctx.typeof(cut.value) === 'string' && (ctx.getLength(cut.value) ?? 0) <= maxUnits
    return ok ? ctx.getString(cut.value) : ''
  })
}
