/**
 * `skillhost/conformance`: framework-free kits that check a `SkillSource` or
 * a `SpoolStore` against its contract. The `SkillSource` kit lives here; the
 * `SpoolStore` kit and the runner both use live beside the spool, in
 * `common/conformance/`, and are published through this entry. Use `runSkillSourceConformance` /
 * `runSpoolStoreConformance` for a report, or the `…Checks` functions to wrap
 * each check in your own runner.
 */
export type {
  ConformanceCheck,
  ConformanceUnsupported,
} from '../../common/conformance/conformance-check.js'
export {
  type ConformanceReport,
  formatConformanceReport,
  runConformanceChecks,
} from '../../common/conformance/run-conformance-checks.js'
export { runSpoolStoreConformance } from '../../common/conformance/run-spool-store-conformance.js'
export type {
  MakeSpoolStore,
  SpoolStoreConformanceOptions,
} from '../../common/conformance/spool-conformance-helpers.js'
export {
  HOSTILE_SPOOL_IDS,
  spoolStoreConformanceChecks,
} from '../../common/conformance/spool-store-conformance-checks.js'
export { runSkillSourceConformance } from './run-skill-source-conformance.js'
export {
  ESCAPING_PATHS,
  type SkillSourceConformanceOptions,
  skillSourceConformanceChecks,
} from './skill-source-conformance-checks.js'
