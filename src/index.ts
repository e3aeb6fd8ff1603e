/**
 * `skillhost`: agent skills as real plugins. The root entry holds the
 * lifecycle (manager, lifecycle tools), the sources, SKILL.md validation and
 * the host primitives. It never loads `node:child_process` or
 * `worker_threads`: the tier-2 guest lives in `skillhost/isolation`, the
 * tier-3 sandbox in `skillhost/sandbox`.
 */
export * from './common/index.js'
export {
  DEFAULT_LIST_PAGE_CHARS,
  type ForgeSkillToolsOptions,
  forgeSkillTools,
} from './lifecycle-tools.js'
export * from './manager/index.js'
export * from './manifest/index.js'
export * from './sources/index.js'
