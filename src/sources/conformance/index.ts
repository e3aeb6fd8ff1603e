/**
 * `skillhost/conformance`: a framework-free kit that checks a `SkillSource`
 * against the contract. Use `runSkillSourceConformance` for a report, or
 * `skillSourceConformanceChecks` to wrap each check in your own runner.
 */
export {
  type ConformanceReport,
  formatConformanceReport,
  runSkillSourceConformance,
} from './run-skill-source-conformance.js'
export {
  type ConformanceCheck,
  type ConformanceUnsupported,
  ESCAPING_PATHS,
  type SkillSourceConformanceOptions,
  skillSourceConformanceChecks,
} from './skill-source-conformance-checks.js'
