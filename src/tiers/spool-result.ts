import { SpooledArtifact } from '../common/artifacts/index.js'
import { Media } from '../common/media.js'
import type { Provenance, Retrievable } from '../common/retrievable.js'
import type { SpoolMeta, SpoolStore } from '../common/spool-store.js'
import type { ToolResult } from '../common/tool.js'

/** Bytes of a text result shown inline before the model is told to page with the readers. */
export const INLINE_PREVIEW_BYTES = 8 * 1024

/**
 * How one tool's results are spooled: the artifact class the deployer bound
 * (`SpooledArtifact` otherwise), the skill's provenance, and the record
 * metadata of a text result, made once per tool and class rather than per call.
 */
export interface ResultKeeping {
  readonly artifactClass: typeof SpooledArtifact
  readonly provenance: Provenance
  readonly textMeta: SpoolMeta
}

/** The `ResultKeeping` of results spooled as `artifactClass` with `provenance`: always untrusted. */
export function resultKeeping(
  artifactClass: typeof SpooledArtifact | undefined,
  provenance: Provenance,
): ResultKeeping {
  const cls = artifactClass ?? SpooledArtifact
  const textMeta = Object.freeze({
    kind: cls.kind,
    mimeType: 'text/plain',
    provenance,
    trusted: false,
  })
  return Object.freeze({ artifactClass: cls, provenance, textMeta })
}

const decoder = new TextDecoder('utf-8', { fatal: false })

function footer(id: string, size: number, kind: string, truncated: boolean): string {
  const more = truncated
    ? ' (preview truncated: page with artifact_cat, artifact_grep or artifact_tail)'
    : ''
  return `\n\n[result ${id} · ${size} bytes · kind ${kind}${more}]`
}

/**
 * Spools a validated skill-tool result into `spool` so it outlives the skill,
 * and returns what the model sees: text results inline up to
 * `INLINE_PREVIEW_BYTES` plus the retrievable id; binary results as a
 * description with the id; `Media` passed through after spooling. Skill
 * output is always spooled untrusted. Text results complete synchronously
 * when the store offers `putSync`.
 */
export function spoolToolResult(
  result: ToolResult,
  spool: SpoolStore,
  keeping: ResultKeeping,
): ToolResult | Promise<ToolResult> {
  if (typeof result !== 'string') return spoolBinaryResult(result, spool, keeping)
  // Text goes to the store as a string: no encode or copy on the hot path.
  // A UTF-16 unit is at most 3 UTF-8 bytes, so a short text needs no count.
  const truncated =
    result.length * 3 > INLINE_PREVIEW_BYTES &&
    Buffer.byteLength(result, 'utf8') > INLINE_PREVIEW_BYTES
  const meta = keeping.textMeta
  if (spool.putSync) return describeTextResult(result, truncated, spool.putSync(result, meta))
  return spool.put(result, meta).then((r) => describeTextResult(result, truncated, r))
}

/** The text the model sees for a spooled text result: the preview and where the rest lives. */
function describeTextResult(result: string, truncated: boolean, r: Retrievable): string {
  const preview = truncated
    ? decoder.decode(Buffer.from(result, 'utf8').subarray(0, INLINE_PREVIEW_BYTES))
    : result
  return `${preview}${footer(r.id, r.size, r.kind, truncated)}`
}

async function spoolBinaryResult(
  result: Exclude<ToolResult, string>,
  spool: SpoolStore,
  keeping: ResultKeeping,
): Promise<ToolResult> {
  const cls = keeping.artifactClass
  const meta = { provenance: keeping.provenance, trusted: false }
  if (result instanceof Uint8Array) {
    const artifact = await cls.spool(spool, result, {
      ...meta,
      mimeType: 'application/octet-stream',
    })
    const r = artifact.retrievable
    return `Binary result spooled as ${r.id} (${r.size} bytes, kind ${r.kind}); inspect it with artifact_stat or artifact_cat.`
  }
  const items = Array.isArray(result) ? result : [result]
  for (const media of items) {
    await spool.put(media.data, { ...meta, kind: 'media', mimeType: media.mimeType })
  }
  return Array.isArray(result) ? result : (result as Media)
}

// The %TypedArray%.prototype[Symbol.toStringTag] getter reads an internal
// slot: it returns the kind of a real typed array and undefined for anything
// else (a Proxy, a forged prototype chain), and runs no skill code.
const typedArrayTag = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
)?.get as (this: unknown) => string | undefined

/** True only for a real `Uint8Array` (not a Proxy, subclass trick or forged prototype); runs no skill code. */
export function isRealUint8Array(value: unknown): value is Uint8Array {
  return (
    typeof value === 'object' &&
    value !== null &&
    ArrayBuffer.isView(value) &&
    Reflect.apply(typedArrayTag, value, []) === 'Uint8Array'
  )
}

// Copies bytes by internal slots (no species, no iterator), so the host owns
// what it spools and a later write by the skill changes nothing.
const copyBytes = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes)

function copyMedia(value: unknown): Media | undefined {
  if (typeof value !== 'object' || value === null || !Media.isInstance(value)) return undefined
  // Each field is read once, so a getter cannot answer differently to the
  // check and to the use; the Media constructor re-validates the MIME type.
  const { mimeType, data, name } = value as Media
  if (typeof mimeType !== 'string' || !isRealUint8Array(data)) return undefined
  if (name !== undefined && typeof name !== 'string') return undefined
  return new Media({ mimeType, data: copyBytes(data), ...(name === undefined ? {} : { name }) })
}

/**
 * A host-owned copy of a skill tool's result when it is one of the allowed
 * shapes (string, `Uint8Array`, `Media`, non-empty `Media[]`), else undefined.
 * The value may be hostile (a Proxy with throwing traps, forged brands,
 * throwing getters): any throw while inspecting it means "not a valid
 * result", never an error the skill chose.
 */
export function toHostToolResult(value: unknown): ToolResult | undefined {
  try {
    if (typeof value === 'string') return value
    if (isRealUint8Array(value)) return copyBytes(value)
    if (Array.isArray(value)) {
      const length = value.length
      if (typeof length !== 'number' || length === 0) return undefined
      const items: Media[] = []
      for (let i = 0; i < length; i += 1) {
        const media = copyMedia(value[i])
        if (!media) return undefined
        items.push(media)
      }
      return items
    }
    return copyMedia(value)
  } catch {
    return undefined
  }
}
