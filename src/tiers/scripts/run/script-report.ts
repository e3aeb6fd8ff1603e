import { SpooledArtifact } from '../../../common/artifacts/index.js'
import { SkillHostError } from '../../../common/errors.js'
import { quoteName } from '../../../common/escape-text.js'
import { fileType } from '../../../common/file-type.js'
import type { Provenance } from '../../../common/retrievable.js'
import type { SpoolStore } from '../../../common/spool-store.js'
import type { ScriptRunResult } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'

/** How much of stdout and of stderr a result shows inline (like a module tool's preview). */
export const SCRIPT_PREVIEW_BYTES = 8 * 1024
/** How much of stderr's end a failed call shows in its error. */
export const SCRIPT_ERROR_TAIL_BYTES = 2 * 1024
/** Largest workspace file a call spools, and most bytes and files it spools in all. */
export const WORKSPACE_SPOOL_LIMITS = {
  fileBytes: 16 * 1024 * 1024,
  callBytes: 64 * 1024 * 1024,
  files: 100,
} as const
/** Most changed files a result names; the rest are counted. */
const LISTED_CHANGES = 200

/** One workspace file a call created, changed or deleted, as its result names it. */
export interface ReportedChange {
  readonly path: string
  readonly change: 'created' | 'modified' | 'deleted'
  readonly size: number
  /** The spooled copy, readable after the workspace is gone. */
  readonly id?: string
  /** Why no copy was spooled. */
  readonly notSpooled?: string
}

/**
 * Spools a copy of every regular file the call created or modified (within
 * `WORKSPACE_SPOOL_LIMITS`), untrusted and with the call's provenance, so
 * outputs stay readable by id after the skill is unloaded and the workspace
 * removed. Symlinks and other entries are named, never read.
 */
export async function spoolWorkspaceChanges(
  result: ScriptRunResult,
  workspace: SessionWorkspace,
  spool: SpoolStore,
  provenance: Provenance,
): Promise<ReportedChange[]> {
  const out: ReportedChange[] = []
  let bytes = 0
  let files = 0
  for (const c of result.workspace?.changes ?? []) {
    if (c.change === 'deleted') {
      out.push({ path: c.path, change: c.change, size: 0 })
      continue
    }
    const skip = (why: string) =>
      out.push({ path: c.path, change: c.change, size: c.size, notSpooled: why })
    if (c.kind !== 'file') skip(`a ${c.kind}, not a regular file`)
    else if (c.size > WORKSPACE_SPOOL_LIMITS.fileBytes)
      skip(`larger than ${WORKSPACE_SPOOL_LIMITS.fileBytes} bytes`)
    else if (files >= WORKSPACE_SPOOL_LIMITS.files)
      skip(`more than ${WORKSPACE_SPOOL_LIMITS.files} files changed`)
    else if (bytes + c.size > WORKSPACE_SPOOL_LIMITS.callBytes)
      skip(`the call's changes exceed ${WORKSPACE_SPOOL_LIMITS.callBytes} bytes`)
    else {
      const read = await workspace
        .get(c.path, WORKSPACE_SPOOL_LIMITS.fileBytes)
        .catch(() => undefined)
      if (read === undefined || read.truncated) {
        skip('it changed or vanished while it was being read')
        continue
      }
      // A call that rewrote a file with the bytes it had names the copy already kept.
      const artifact = await SpooledArtifact.spool(
        spool,
        read.bytes,
        {
          provenance,
          trusted: false,
          title: `/work/${c.path}`,
          mimeType: fileType(c.path, read.bytes.subarray(0, 4096), read.bytes.byteLength <= 4096)
            .mediaType,
        },
        { dedupe: true },
      ).catch((err: unknown) => {
        // A full store keeps the call's result: the file is named, not copied.
        if (SkillHostError.is(err, 'E_SPOOL_FULL')) return undefined
        throw err
      })
      if (artifact === undefined) {
        skip("the session's result store is full")
        continue
      }
      files += 1
      bytes += read.bytes.byteLength
      out.push({
        path: c.path,
        change: c.change,
        size: read.bytes.byteLength,
        id: artifact.retrievable.id,
      })
    }
  }
  return out
}

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
