import type { ConformanceCheck } from './conformance-check.js'

/** The outcome of a conformance run: every check is in exactly one list. */
export interface ConformanceReport {
  readonly label: string
  readonly ok: boolean
  readonly passed: readonly string[]
  readonly failed: readonly { readonly name: string; readonly error: unknown }[]
  readonly unsupported: readonly { readonly name: string; readonly reason: string }[]
}

/**
 * Runs `checks` one after another and reports which passed, failed (with the
 * error) or are unsupported (with the reason). Never throws for a failing
 * check; `ok` is true when nothing failed. Both kits report through this.
 */
export async function runConformanceChecks(
  label: string,
  checks: readonly ConformanceCheck[],
): Promise<ConformanceReport> {
  const passed: string[] = []
  const failed: { name: string; error: unknown }[] = []
  const unsupported: { name: string; reason: string }[] = []
  for (const c of checks) {
    try {
      const result = await c.run()
      if (result && typeof result.unsupported === 'string')
        unsupported.push({ name: c.name, reason: result.unsupported })
      else passed.push(c.name)
    } catch (error) {
      failed.push({ name: c.name, error })
    }
  }
  return { label, ok: failed.length === 0, passed, failed, unsupported }
}

/** A readable multi-line summary of a report, for test output and CI logs. */
export function formatConformanceReport(report: ConformanceReport): string {
  const lines = [
    `${report.label}: ${report.passed.length} passed, ${report.failed.length} failed, ${report.unsupported.length} unsupported`,
  ]
  for (const f of report.failed)
    lines.push(`  FAIL ${f.name}: ${f.error instanceof Error ? f.error.message : String(f.error)}`)
  for (const u of report.unsupported) lines.push(`  UNSUPPORTED ${u.name}: ${u.reason}`)
  return lines.join('\n')
}
