import { SpooledArtifact } from '../common/artifacts/index.js'
import { Media } from '../common/media.js'
import type { Provenance, Retrievable } from '../common/retrievable.js'
import type { SpoolStore } from '../common/spool-store.js'
import type { ToolResult } from '../common/tool.js'

/** Bytes of a text result shown inline before the model is told to page with the readers. */
export const INLINE_PREVIEW_BYTES = 8 * 1024

/** How one skill-tool result is spooled. */
export interface SpoolResultOptions {
  readonly spool: SpoolStore
  /** The artifact class the deployer bound to this tool; `SpooledArtifact` otherwise. */
  readonly artifactClass?: typeof SpooledArtifact
  readonly provenance: Provenance
}

const decoder = new TextDecoder('utf-8', { fatal: false })

function footer(id: string, size: number, kind: string, truncated: boolean): string {
  const more = truncated
    ? ' (preview truncated: page with artifact_cat, artifact_grep or artifact_tail)'
    : ''
  return `\n\n[result ${id} · ${size} bytes · kind ${kind}${more}]`
}

/**
 * Spools a validated skill-tool result so it outlives the skill, and returns
 * what the model sees: text results inline up to `INLINE_PREVIEW_BYTES` plus
 * the retrievable id; binary results as a description with the id; `Media`
 * passed through after spooling. Skill output is always spooled untrusted.
 * Text results complete synchronously when the store offers `putSync`.
 */
export function spoolToolResult(
  result: ToolResult,
  options: SpoolResultOptions,
): ToolResult | Promise<ToolResult> {
  if (typeof result !== 'string') return spoolBinaryResult(result, options)
  const cls = options.artifactClass ?? SpooledArtifact
  // Text goes to the store as a string: no encode or copy on the hot path.
  const size = Buffer.byteLength(result, 'utf8')
  const meta = {
    kind: cls.kind,
    mimeType: 'text/plain',
    provenance: options.provenance,
    trusted: false,
  }
  const { spool } = options
  if (spool.putSync) return describeTextResult(result, size, spool.putSync(result, meta))
  return spool.put(result, meta).then((r) => describeTextResult(result, size, r))
}

/** The text the model sees for a spooled text result: the preview and where the rest lives. */
function describeTextResult(result: string, size: number, r: Retrievable): string {
  const truncated = size > INLINE_PREVIEW_BYTES
  const preview = truncated
    ? decoder.decode(Buffer.from(result, 'utf8').subarray(0, INLINE_PREVIEW_BYTES))
    : result
  return `${preview}${footer(r.id, r.size, r.kind, truncated)}`
}

async function spoolBinaryResult(
  result: Exclude<ToolResult, string>,
  options: SpoolResultOptions,
): Promise<ToolResult> {
  const cls = options.artifactClass ?? SpooledArtifact
  const meta = { provenance: options.provenance, trusted: false }
  if (result instanceof Uint8Array) {
    const artifact = await cls.spool(options.spool, result, {
      ...meta,
      mimeType: 'application/octet-stream',
    })
    const r = artifact.retrievable
    return `Binary result spooled as ${r.id} (${r.size} bytes, kind ${r.kind}); inspect it with artifact_stat or artifact_cat.`
  }
  const items = Array.isArray(result) ? result : [result]
  for (const media of items) {
    await options.spool.put(media.data, { ...meta, kind: 'media', mimeType: media.mimeType })
  }
  return Array.isArray(result) ? result : (result as Media)
}

/** True for the result shapes a skill tool may return: string, Uint8Array, Media, non-empty Media[]. */
export function isValidToolResult(value: unknown): value is ToolResult {
  if (typeof value === 'string' || value instanceof Uint8Array) return true
  if (Media.isInstance(value)) return true
  return Array.isArray(value) && value.length > 0 && value.every((item) => Media.isInstance(item))
}
