import {
  type ConformanceReport,
  runConformanceChecks,
} from '../../common/conformance/run-conformance-checks.js'
import type { SkillSource } from '../types.js'
import {
  type SkillSourceConformanceOptions,
  skillSourceConformanceChecks,
} from './skill-source-conformance-checks.js'

/**
 * Runs every `SkillSource` contract check against sources from `makeSource`
 * (called once per check) and reports which passed, failed (with the error)
 * or are unsupported (with the reason). Never throws for a failing check;
 * `ok` is true when nothing failed.
 */
export function runSkillSourceConformance(
  label: string,
  makeSource: () => SkillSource | Promise<SkillSource>,
  options: SkillSourceConformanceOptions = {},
): Promise<ConformanceReport> {
  return runConformanceChecks(label, skillSourceConformanceChecks(makeSource, options))
}
