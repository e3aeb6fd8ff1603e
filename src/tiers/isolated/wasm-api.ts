// The project compiles against ES2023 and @types/node 20, neither of which
// types the `WebAssembly` global. These are the few members tier 2 uses,
// read from the real global at run time.

/** A compiled WebAssembly module: opaque, shareable with workers by `postMessage`. */
export interface WasmModule {
  readonly __wasmModule?: never
}

/** A WebAssembly linear memory. Its `maximum` is enforced by the engine. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}

interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory
  RuntimeError: new (message?: string) => Error
}

/** The engine's `WebAssembly` namespace, typed to what this folder needs. */
export const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly
