import { SpooledArtifact } from '../../../common/artifacts/index.js'
import type { OutRead } from '../../../common/door/read-out.js'
import { SkillHostError } from '../../../common/errors.js'
import { fileType } from '../../../common/file-type.js'
import type { Provenance } from '../../../common/retrievable.js'
import type { SpoolStore } from '../../../common/spool-store.js'
import type { ScriptRunResult } from '../types.js'
import type { ScriptSpool } from './script-call.js'

export { WORKSPACE_SPOOL_LIMITS } from '../workspace/workspace-call.js'

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
 * Spools a copy of every regular file the call created or modified, as the
 * door let it out (`WorkspaceCall.finish` read each back with `readOut`:
 * the name rule, regular files only, a hard link once, read by descriptor
 * through the workspace, within `WORKSPACE_SPOOL_LIMITS`; `out` holds one
 * judgement per change that is not a deletion), untrusted and with the
 * call's provenance, so outputs stay readable by id after the skill is
 * unloaded and the workspace removed. What the door refused is named with
 * its reason, never read.
 */
export async function spoolWorkspaceChanges(
  result: ScriptRunResult,
  out: readonly OutRead[],
  spool: SpoolStore,
  provenance: Provenance,
): Promise<ReportedChange[]> {
  const changes = result.workspace?.changes ?? []
  const reported: ReportedChange[] = []
  let next = 0
  for (const c of changes) {
    if (c.change === 'deleted') {
      reported.push({ path: c.path, change: c.change, size: 0 })
      continue
    }
    const r = out[next++] as OutRead
    reported.push(
      r.refused === undefined
        ? await spoolChange(c, r.bytes, spool, provenance)
        : { path: c.path, change: c.change, size: c.size, notSpooled: r.refused },
    )
  }
  return reported
}

/** One changed file's bytes spooled (a rewrite with the same bytes names the copy already kept). */
async function spoolChange(
  c: Pick<ReportedChange, 'path' | 'change' | 'size'>,
  bytes: Uint8Array,
  spool: SpoolStore,
  provenance: Provenance,
): Promise<ReportedChange> {
  const mimeType = fileType(c.path, bytes.subarray(0, 4096), bytes.byteLength <= 4096).mediaType
  const artifact = await SpooledArtifact.spool(
    spool,
    bytes,
    { provenance, trusted: false, title: `/work/${c.path}`, mimeType },
    { dedupe: true },
  ).catch((err: unknown) => {
    // A full store keeps the call's result: the file is named, not copied.
    if (SkillHostError.is(err, 'E_SPOOL_FULL')) return undefined
    throw err
  })
  if (artifact === undefined) return { ...c, notSpooled: "the session's result store is full" }
  return { path: c.path, change: c.change, size: bytes.byteLength, id: artifact.retrievable.id }
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
 * files it changed as the door let them out (`spoolWorkspaceChanges`). A timed-out call's partial
 * output is spooled like any other, so the model sees how far it got.
 */
export async function spoolScriptOutput(
  result: ScriptRunResult,
  out: readonly OutRead[],
  spool: ScriptSpool,
  skill: string,
): Promise<{ outputId: string; changes: ReportedChange[] }> {
  const provenance = { skill, skillVersion: spool.skillVersion, tool: spool.tool }
  const artifact = await SpooledArtifact.spool(spool.store, outputText(result), {
    provenance,
    trusted: false,
    title: `${spool.tool} output`,
  })
  const changes = await spoolWorkspaceChanges(result, out, spool.store, provenance)
  return { outputId: artifact.retrievable.id, changes }
}
