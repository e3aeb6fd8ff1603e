import { type ConformanceReport, runConformanceChecks } from './run-conformance-checks.js'
import type { MakeSpoolStore, SpoolStoreConformanceOptions } from './spool-conformance-helpers.js'
import { spoolStoreConformanceChecks } from './spool-store-conformance-checks.js'

/**
 * Runs every `SpoolStore` contract check against stores from `makeStore`
 * (called once per check; each must be fresh and empty, e.g. a new directory
 * or schema) and reports which passed, failed (with the error) or are
 * unsupported (with the reason). Never throws for a failing check.
 */
export function runSpoolStoreConformance(
  label: string,
  makeStore: MakeSpoolStore,
  options: SpoolStoreConformanceOptions = {},
): Promise<ConformanceReport> {
  return runConformanceChecks(label, spoolStoreConformanceChecks(makeStore, options))
}
