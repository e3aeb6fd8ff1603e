import { SpooledArtifact } from '../../../common/artifacts/index.js'
import { SkillHostError } from '../../../common/errors.js'
import { fileType } from '../../../common/file-type.js'
import type { Provenance } from '../../../common/retrievable.js'
import type { SpoolStore } from '../../../common/spool-store.js'
import type { ScriptRunResult } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import type { ScriptSpool } from './script-call.js'

/** Largest workspace file a call spools, and most bytes and files it spools in all. */
export const WORKSPACE_SPOOL_LIMITS = {
  fileBytes: 16 * 1024 * 1024,
  callBytes: 64 * 1024 * 1024,
  files: 100,
} as const

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

/** The text a call's output is spooled as: how it ended, then stdout and stderr whole. */
function outputText(result: ScriptRunResult): string {
  const ended = result.timedOut ? 'killed at the deadline' : `exit code: ${String(result.exitCode)}`
  const parts = [`${ended}${result.truncated ? ' (output truncated)' : ''}`]
  parts.push('--- stdout ---', result.stdout)
  if (result.stderr) parts.push('--- stderr ---', result.stderr)
  return parts.join('\n')
}

/**
 * Tier 3's one place of spooling: a call's whole output (untrusted, with
 * the call's provenance, titled `<tool> output`) and, with a workspace, the
 * files it changed (`spoolWorkspaceChanges`). A timed-out call's partial
 * output is spooled like any other, so the model sees how far it got.
 */
export async function spoolScriptOutput(
  result: ScriptRunResult,
  workspace: SessionWorkspace | undefined,
  spool: ScriptSpool,
  skill: string,
): Promise<{ outputId: string; changes: ReportedChange[] }> {
  const provenance = { skill, skillVersion: spool.skillVersion, tool: spool.tool }
  const artifact = await SpooledArtifact.spool(spool.store, outputText(result), {
    provenance,
    trusted: false,
    title: `${spool.tool} output`,
  })
  const changes =
    workspace === undefined
      ? []
      : await spoolWorkspaceChanges(result, workspace, spool.store, provenance)
  return { outputId: artifact.retrievable.id, changes }
}
