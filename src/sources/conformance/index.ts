/**
 * `skillhost/conformance`: framework-free kits that check a `SkillSource` or
 * a `SpoolStore` against its contract. Use `runSkillSourceConformance` /
 * `runSpoolStoreConformance` for a report, or the `…Checks` functions to wrap
 * each check in your own runner.
 */
export {
  type ConformanceReport,
  formatConformanceReport,
  runConformanceChecks,
} from './run-conformance-checks.js'
export { runSkillSourceConformance } from './run-skill-source-conformance.js'
export { runSpoolStoreConformance } from './run-spool-store-conformance.js'
export {
  type ConformanceCheck,
  type ConformanceUnsupported,
  ESCAPING_PATHS,
  type SkillSourceConformanceOptions,
  skillSourceConformanceChecks,
} from './skill-source-conformance-checks.js'
export type { MakeSpoolStore, SpoolStoreConformanceOptions } from './spool-conformance-helpers.js'
export { HOSTILE_SPOOL_IDS, spoolStoreConformanceChecks } from './spool-store-conformance-checks.js'
