import type * as Yaml from 'yaml'

let lib: typeof Yaml | undefined

/**
 * The `yaml` package, loaded on first use (it is CommonJS, so a synchronous
 * `require` serves the synchronous parsers): about 40 ms of start-up that a
 * process whose manifests all take the fast frontmatter path never pays.
 * The same module instance an `import` would give.
 */
export function yamlLib(): typeof Yaml {
  if (lib === undefined) {
    const { createRequire } = process.getBuiltinModule('node:module')
    lib = createRequire(import.meta.url)('yaml') as typeof Yaml
  }
  return lib
}
