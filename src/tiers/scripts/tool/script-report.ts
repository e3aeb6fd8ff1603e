import { quoteName } from '../../../common/escape-text.js'
import type { ReportedChange } from '../run/spool-script-output.js'
import type { ScriptRunResult } from '../types.js'

/** How much of stdout and of stderr a result shows inline (like a module tool's preview). */
export const SCRIPT_PREVIEW_BYTES = 8 * 1024
/** How much of stderr's end a failed call shows in its error. */
export const SCRIPT_ERROR_TAIL_BYTES = 2 * 1024

/** Most changed files a result names; the rest are counted. */
const LISTED_CHANGES = 200

function head(text: string, max: number): { text: string; cut: number } {
  const bytes = new TextEncoder().encode(text)
  if (bytes.byteLength <= max) return { text, cut: 0 }
  const kept = new TextDecoder().decode(bytes.subarray(0, max)).replace(/\uFFFD$/, '')
  return { text: kept, cut: bytes.byteLength - max }
}

/** The last `max` bytes of `text`, on a character boundary. */
export function tailOf(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text)
  if (bytes.byteLength <= max) return text
  return new TextDecoder().decode(bytes.subarray(bytes.byteLength - max)).replace(/^\uFFFD/, '')
}

function section(name: string, text: string, outputId: string): string[] {
  const { text: shown, cut } = head(text, SCRIPT_PREVIEW_BYTES)
  const lines = [`--- ${name} ---`, shown]
  if (cut > 0) lines.push(`[… ${cut} more bytes in ${outputId}]`)
  return lines
}

/** The lines naming what the call did to the workspace (empty without a workspace). */
export function describeChanges(
  result: ScriptRunResult,
  changes: readonly ReportedChange[],
): string[] {
  const report = result.workspace
  if (report === undefined) return []
  const lines = [`--- workspace /work: ${changes.length} file(s) changed ---`]
  for (const c of changes.slice(0, LISTED_CHANGES)) {
    const size = c.change === 'deleted' ? '' : ` (${c.size} bytes)`
    const where =
      c.id !== undefined ? `, copy: ${c.id}` : c.notSpooled ? `, not spooled: ${c.notSpooled}` : ''
    lines.push(`${c.change} ${quoteName(c.path)}${size}${where}`)
  }
  if (changes.length > LISTED_CHANGES) lines.push(`… and ${changes.length - LISTED_CHANGES} more`)
  for (const r of report.removed ?? []) lines.push(`removed ${quoteName(r.path)}: ${r.reason}`)
  if (!report.complete) lines.push('(the workspace holds too many entries to track every change)')
  return lines
}

/**
 * What the model reads after a call: how it ended, stdout and stderr inline
 * up to `SCRIPT_PREVIEW_BYTES` each (the whole output is `outputId`), and
 * the workspace files it changed with the ids of their copies.
 */
export function renderScriptResult(
  result: ScriptRunResult,
  outputId: string,
  changes: readonly ReportedChange[],
): string {
  const ended = result.timedOut ? 'killed at the deadline' : `exit code ${String(result.exitCode)}`
  const lines = [
    `${ended}; ${result.bytes} bytes of output${result.truncated ? ' (truncated)' : ''}; full output: ${outputId}`,
    ...section('stdout', result.stdout, outputId),
  ]
  if (result.stderr) lines.push(...section('stderr', result.stderr, outputId))
  lines.push(...describeChanges(result, changes))
  return lines.join('\n')
}
