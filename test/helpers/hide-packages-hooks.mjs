// Module resolution hooks for a child process: the packages listed are
// resolved from a folder with no node_modules, so Node's own resolver fails
// with its own error (ERR_MODULE_NOT_FOUND), as in an app that never installed them.
let hidden = []

export async function initialize(data) {
  hidden = data.hidden
}

export async function resolve(specifier, context, next) {
  const parts = specifier.split('/')
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
  if (hidden.includes(name)) {
    return next(specifier, { ...context, parentURL: 'file:///nonexistent-skillhost-app/index.mjs' })
  }
  return next(specifier, context)
}
