import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import releaseSyncVariant from '@jitl/quickjs-wasmfile-release-sync'
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core'
import { WASM_PAGE_BYTES } from './limits.js'
import { type WasmMemory, type WasmModule, wasmApi } from './wasm-api.js'

// The variant ships CommonJS typings, so under NodeNext the default import is
// typed as the module object; at run time it is the variant itself. Accept both.
const baseVariant = (
  'default' in releaseSyncVariant ? releaseSyncVariant.default : releaseSyncVariant
) as QuickJSSyncVariant

let compiled: Promise<WasmModule> | undefined

/**
 * Compiles the QuickJS WebAssembly binary once per thread. The result can be
 * posted to workers, which then instantiate it without compiling again.
 */
export function compileQuickJsWasm(): Promise<WasmModule> {
  compiled ??= (async () => {
    const require = createRequire(import.meta.url)
    const bytes = await readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))
    return wasmApi.compile(bytes)
  })()
  compiled.catch(() => {
    compiled = undefined
  })
  return compiled
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
 * Instantiates a fresh QuickJS from `wasmModule` inside a new WebAssembly
 * memory whose `maximum` is `memoryBytes`. The interpreter's own memory limit
 * is not enforced by the emscripten build; this one is enforced by the
 * WebAssembly engine: growing past it fails and QuickJS reports out of memory.
 */
export async function instantiateBoundedQuickJs(
  wasmModule: WasmModule,
  memoryBytes: number,
): Promise<BoundedQuickJs> {
  const memory = new wasmApi.Memory({
    // The module's declared minimum (256 pages); limits.ts refuses smaller caps.
    initial: 256,
    maximum: Math.floor(memoryBytes / WASM_PAGE_BYTES),
  })
  // The allocator grows memory through this object; a refused growth is the
  // exact signal that the guest hit its cap, whatever QuickJS then throws.
  let refused = false
  const grow = memory.grow.bind(memory)
  Object.defineProperty(memory, 'grow', {
    value: (pages: number) => {
      try {
        return grow(pages)
      } catch (err) {
        refused = true
        throw err
      }
    },
  })
  const variant = newVariant(baseVariant, {
    wasmModule: wasmModule as never,
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
 * Keeps one instantiated QuickJS ready ahead of the next evaluation, so the
 * instantiation (and the garbage collection a fresh 16 MiB memory tends to
 * trigger) happens while the thread is idle instead of inside a call. A
 * spare is handed out once and never returned: every evaluation still gets
 * a fresh instance and a fresh memory.
 */
export class QuickJsInstanceReserve {
  #spare: { memoryBytes: number; instance: Promise<BoundedQuickJs> } | undefined

  constructor(readonly wasmModule: WasmModule) {}

  /** A fresh instance capped at `memoryBytes`: the spare if it fits, else a new one. */
  take(memoryBytes: number): Promise<BoundedQuickJs> {
    const spare = this.#spare
    this.#spare = undefined
    if (spare && spare.memoryBytes === memoryBytes) return spare.instance
    return instantiateBoundedQuickJs(this.wasmModule, memoryBytes)
  }

  /** Prepares the next spare, if none is waiting. Failures surface on `take`. */
  refill(memoryBytes: number): Promise<void> {
    if (!this.#spare) {
      const instance = instantiateBoundedQuickJs(this.wasmModule, memoryBytes)
      instance.catch(() => {})
      this.#spare = { memoryBytes, instance }
    }
    return this.#spare.instance.then(
      () => {},
      () => {},
    )
  }
}
