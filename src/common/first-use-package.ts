/**
 * A CommonJS package loaded on its first use instead of at start-up, through
 * a synchronous `require` (so synchronous callers can use it): the one way
 * skillhost defers a package. `specifier` resolves from this folder, as an
 * `import` in `src/` would; the module instance is the one `require` caches.
 */
export function firstUsePackage<T>(specifier: string): () => T {
  let loaded: T | undefined
  return () => {
    if (loaded === undefined) {
      const { createRequire } = process.getBuiltinModule('node:module')
      loaded = createRequire(import.meta.url)(specifier) as T
    }
    return loaded
  }
}
