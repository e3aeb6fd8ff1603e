import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import releaseSyncVariant from '@jitl/quickjs-wasmfile-release-sync'
import {
  DefaultIntrinsics,
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
  Scope,
} from 'quickjs-emscripten-core'
import { type ConsoleCapture, installConsole } from './guest-console.js'
import { type GuestPrelude, installPrelude } from './guest-prelude.js'
import { WASM_PAGE_BYTES } from './limits.js'
import { type WasmMemory, type WasmModule, wasmApi } from './wasm-api.js'

// The variant ships CommonJS typings, so under NodeNext the default import is
// typed as the module object; at run time it is the variant itself. Accept both.
const baseVariant = (
  'default' in releaseSyncVariant ? releaseSyncVariant.default : releaseSyncVariant
) as QuickJSSyncVariant

/**
 * Pages a fresh guest memory starts with. The binary declares 256 (16 MiB),
 * but its static data and 5 MiB stack end at 5.1 MiB (the initial stack
 * pointer) and a prepared runtime and context add about 0.1 MiB, so 6 MiB
 * holds a fresh instance; the allocator grows the memory on demand, up to the
 * cap (growth only commits pages the engine has already reserved). Committing
 * less per call matters: each fresh memory counts as external memory of the
 * thread's heap, and at 16 MiB per call V8 ran a full garbage collection
 * (5-10 ms, plus concurrent marking) every 3 calls; at 6 MiB, every 10.
 */
export const GUEST_INITIAL_PAGES = 96

/** The compiled QuickJS binary and the pages its memory import needs at least. */
export interface QuickJsBinary {
  /** Shareable with workers by `postMessage`: they instantiate it without compiling. */
  module: WasmModule
  initialPages: number
}

// What the binary declares when its import section cannot be read.
const DECLARED_INITIAL_PAGES = 256

let compiled: Promise<QuickJsBinary> | undefined

/**
 * Compiles the QuickJS WebAssembly binary once per thread, with its memory
 * import's minimum lowered to `GUEST_INITIAL_PAGES` (see there). The result
 * can be posted to workers, which then instantiate it without compiling again.
 */
export function compileQuickJsWasm(): Promise<QuickJsBinary> {
  compiled ??= (async () => {
    const require = createRequire(import.meta.url)
    const bytes = await readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))
    const initialPages = lowerMemoryMinimum(bytes, GUEST_INITIAL_PAGES) ?? DECLARED_INITIAL_PAGES
    return { module: await wasmApi.compile(bytes), initialPages }
  })()
  compiled.catch(() => {
    compiled = undefined
  })
  return compiled
}

/**
 * Rewrites, in place, the minimum of the binary's imported memory to at most
 * `pages`, keeping the byte length (a padded LEB128 is valid WebAssembly), and
 * returns the minimum the binary now declares. Returns `undefined` and leaves
 * the bytes alone if they do not look as expected; the maximum is untouched
 * (the memory passed in carries the real cap).
 */
export function lowerMemoryMinimum(bytes: Uint8Array, pages: number): number | undefined {
  let at = 8
  const u32 = (): number => {
    let value = 0
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = bytes[at++]
      if (byte === undefined) throw new RangeError('truncated')
      value += (byte & 0x7f) * 2 ** shift
      if ((byte & 0x80) === 0) return value
    }
    throw new RangeError('bad LEB128')
  }
  try {
    if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return
    while (at < bytes.length) {
      const id = bytes[at++]
      const size = u32()
      const end = at + size
      if (id !== 2) {
        at = end
        continue
      }
      for (let count = u32(); count > 0; count--) {
        // Names: a length, then that many bytes (`at += u32()` would read `at` first).
        for (let name = 0; name < 2; name++) {
          const length = u32()
          at += length
        }
        const kind = bytes[at++]
        if (kind === 0) u32()
        else if (kind === 1 || kind === 2) {
          if (kind === 1) at++ // reference type
          const flags = bytes[at++] as number
          if (flags > 1) return // shared or 64-bit: not this binary
          const minAt = at
          const min = u32()
          const minLength = at - minAt
          if (flags === 1) u32()
          if (kind === 1) continue
          if (min <= pages) return min
          for (let i = 0; i < minLength; i++) {
            const last = i === minLength - 1
            bytes[minAt + i] = (Math.floor(pages / 2 ** (7 * i)) & 0x7f) | (last ? 0 : 0x80)
          }
          return pages
        } else if (kind === 3) at += 2
        else if (kind === 4) {
          at++
          u32()
        } else return
      }
      return
    }
  } catch {
    return
  }
  return
}

/** A QuickJS instance together with the memory that bounds it. */
export interface BoundedQuickJs {
  quickjs: QuickJSWASMModule
  memory: WasmMemory
  /** True once the allocator asked for more memory than the cap allows. */
  capReached(): boolean
}

const quiet = () => {}

/**
 * Instantiates a fresh QuickJS from `binary` inside a new WebAssembly
 * memory whose `maximum` is `memoryBytes`. The interpreter's own memory limit
 * is not enforced by the emscripten build; this one is enforced by the
 * WebAssembly engine: growing past it fails and QuickJS reports out of memory.
 */
export async function instantiateBoundedQuickJs(
  binary: QuickJsBinary,
  memoryBytes: number,
): Promise<BoundedQuickJs> {
  const maximum = Math.floor(memoryBytes / WASM_PAGE_BYTES)
  const memory = new wasmApi.Memory({
    // limits.ts refuses caps below 16 MiB, so this never exceeds `maximum`.
    initial: Math.min(binary.initialPages, maximum),
    maximum,
  })
  // The allocator grows memory through this object; a refused growth is the
  // exact signal that the guest hit its cap, whatever QuickJS then throws.
  // Emscripten first asks for a speculative overgrowth and falls back to the
  // exact size, so a later successful growth clears the flag: only a refusal
  // that was not followed by a success means the cap was reached.
  let refused = false
  const grow = memory.grow.bind(memory)
  Object.defineProperty(memory, 'grow', {
    value: (pages: number) => {
      try {
        const previous = grow(pages)
        refused = false
        return previous
      } catch (err) {
        refused = true
        throw err
      }
    },
  })
  const variant = newVariant(baseVariant, {
    wasmModule: binary.module as never,
    wasmMemory: memory as never,
    // Emscripten prints aborts to the host console; guests must not reach it.
    emscriptenModule: { print: quiet, printErr: quiet } as never,
    log: quiet,
  })
  return {
    quickjs: await newQuickJSWASMModuleFromVariant(variant),
    memory,
    capReached: () => refused,
  }
}

/**
 * A fresh QuickJS runtime and context inside a fresh bounded instance,
 * hardened by the prelude and given a console, before any guest code runs.
 * Everything here is the same for every evaluation; what depends on the call
 * (stack cap, deadline, modules, host globals, console caps) is set by the
 * evaluation that takes it. It serves exactly one evaluation.
 */
export interface FreshQuickJs {
  instance: BoundedQuickJs
  runtime: QuickJSRuntime
  context: QuickJSContext
  prelude: GuestPrelude
  /** Where `console.*` writes; lines are dropped while it is unset. */
  console: { capture: ConsoleCapture | undefined }
  /**
   * Owns the runtime, the context and the prelude's helpers. Evaluations
   * never dispose it: dropping the instance whole is cheaper than freeing
   * it. Disposing it frees the guest, and QuickJS aborts if any object is
   * still referenced then, which is how tests prove nothing leaked.
   */
  scope: Scope
}

/**
 * Instantiates a bounded QuickJS and prepares a runtime and context in it:
 * the part of an evaluation that does not depend on the call, so a reserve
 * can do it while the thread is idle.
 */
export async function prepareFreshQuickJs(
  binary: QuickJsBinary,
  memoryBytes: number,
): Promise<FreshQuickJs> {
  const instance = await instantiateBoundedQuickJs(binary, memoryBytes)
  // If preparing throws, the instance is dropped unused: nothing to free.
  const scope = new Scope()
  const runtime = scope.manage(instance.quickjs.newRuntime())
  const context = scope.manage(
    runtime.newContext({ intrinsics: { ...DefaultIntrinsics, Date: false } }),
  )
  const prelude = installPrelude(context, scope)
  const sink: FreshQuickJs['console'] = { capture: undefined }
  installConsole(context, prelude, () => sink.capture)
  return { instance, runtime, context, prelude, console: sink, scope }
}

/**
 * Keeps one fresh, prepared QuickJS ready ahead of the next evaluation, so
 * the instantiation, the runtime and context set-up, and the garbage
 * collection a fresh memory tends to trigger happen while the thread is idle
 * instead of inside a call. A spare is handed out once and never returned:
 * every evaluation still gets a fresh instance, memory, runtime and context.
 */
export class QuickJsInstanceReserve {
  #spare: { memoryBytes: number; fresh: Promise<FreshQuickJs> } | undefined

  constructor(readonly binary: QuickJsBinary) {}

  /** A fresh prepared QuickJS capped at `memoryBytes`: the spare if it fits, else a new one. */
  take(memoryBytes: number): Promise<FreshQuickJs> {
    const spare = this.#spare
    this.#spare = undefined
    if (spare && spare.memoryBytes === memoryBytes) return spare.fresh
    return prepareFreshQuickJs(this.binary, memoryBytes)
  }

  /** Prepares the next spare, if none is waiting. Failures surface on `take`. */
  refill(memoryBytes: number): Promise<void> {
    if (!this.#spare) {
      const fresh = prepareFreshQuickJs(this.binary, memoryBytes)
      fresh.catch(() => {})
      this.#spare = { memoryBytes, fresh }
    }
    return this.#spare.fresh.then(
      () => {},
      () => {},
    )
  }
}
