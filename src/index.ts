/**
 * `skillhost`: agent skills as real plugins. The root entry holds what a host
 * needs to build an agent: the manager and its lifecycle tools, the built-in
 * sources, and the most-used primitives (tools, gate, errors, turn context,
 * spool stores). Each part is a module re-exported whole, so no name is
 * listed twice; everything else lives in its subpath (`skillhost/common`,
 * `skillhost/sources`, `skillhost/manifest`, …). It never loads
 * `node:child_process` or `worker_threads`: the tier-2 guest lives in
 * `skillhost/isolation`, the tier-3 sandbox in `skillhost/sandbox`.
 */
export * from './common/essentials.js'
export * from './lifecycle-tools.js'
export * from './manager/index.js'
export * from './sources/essentials.js'
