import { SkillHostError } from '../errors.js'
import type { Retrievable } from '../retrievable.js'
import { spoolContentKey } from '../spool-put-key.js'
import type { SpoolStore } from '../spool-store.js'
import type { Tool } from '../tool.js'
import type { GrepOptions, GrepResult } from './artifact-grep.js'
import { type ArtifactText, decodeArtifactText } from './artifact-text.js'
import type {
  ArtifactClass,
  ArtifactSpoolMeta,
  ArtifactStat,
  BinaryContent,
  CatRange,
} from './artifact-types.js'
import { byteCap, catContent, grepContent } from './read-content.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'
import {
  type ByteWindow,
  type LineWindow,
  readLinesBackward,
  readLinesForward,
} from './text-window.js'

const ARTIFACT_BRAND = Symbol.for('skillhost.artifact')
/** Brand on the `SpooledArtifact` constructor; subclasses inherit it through the static prototype chain. */
export const ARTIFACT_CLASS_BRAND: unique symbol = Symbol.for('skillhost.artifact-class') as never

const invalid = (message: string) => new SkillHostError('E_ARTIFACT_READ_INVALID', message)

function lineCount(value: number | undefined, what: string): number {
  const n = value ?? ARTIFACT_READ_LIMITS.defaultLines
  if (!Number.isInteger(n) || n < 1) throw invalid(`${what} must be a positive integer.`)
  return Math.min(n, ARTIFACT_READ_LIMITS.maxLines)
}

/**
 * A handle on spooled bytes: a `Retrievable` in a `SpoolStore`, plus the read
 * operations the `artifact_*` reader tools are built on. The base kind is
 * 'text'. A host writes its own kind by subclassing: set `static kind` (and
 * `mimeType` if it differs), override `accepts` if its readers should take
 * other kinds, and return extra `artifact_*` reader tools from `static readers()`.
 * Reads go to the store every time, so an artifact stays readable for as long
 * as its bytes are spooled, whatever happened to the skill that produced it.
 */
export class SpooledArtifact {
  /** The kind recorded in `retrievable.kind` by `spool`. */
  static readonly kind: string = 'text'
  /** The MIME type `spool` records when the caller gives none. */
  static readonly mimeType: string = 'text/plain'

  readonly store: SpoolStore
  readonly retrievable: Retrievable

  constructor(store: SpoolStore, retrievable: Retrievable) {
    this.store = store
    this.retrievable = retrievable
  }

  /**
   * Spools `content` into `store` as this class's kind and returns the
   * artifact. With `dedupe: true` the put carries a content key
   * (`spoolContentKey`: the bytes and the metadata), so spooling the same
   * bytes as the same thing again returns the existing item and stores no
   * copy (what the workspace tools do for files a model reads again).
   */
  static async spool<T extends SpooledArtifact>(
    this: ArtifactClass<T>,
    store: SpoolStore,
    content: string | Uint8Array,
    meta: ArtifactSpoolMeta = {},
    options: { readonly dedupe?: boolean } = {},
  ): Promise<T> {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content
    // biome-ignore lint/complexity/noThisInStatic: polymorphic `this` is the subclass being spooled
    const { kind, mimeType } = this
    const full = { ...meta, kind, mimeType: meta.mimeType ?? mimeType }
    const record = await store.put(
      bytes,
      full,
      options.dedupe ? { idempotencyKey: spoolContentKey(bytes, full) } : undefined,
    )
    return new this(store, record)
  }

  /**
   * Opens the artifact `id` in `store`. Throws `E_ARTIFACT_NOT_FOUND` for an
   * unknown id and `E_ARTIFACT_READ_INVALID` when this class does not accept
   * the artifact's kind (`reader` names the tool in that message).
   */
  static async open<T extends SpooledArtifact>(
    this: ArtifactClass<T>,
    store: SpoolStore,
    id: string,
    reader?: string,
  ): Promise<T> {
    const record = await store.stat(id)
    if (!record) throw notFound(id)
    // biome-ignore lint/complexity/noThisInStatic: polymorphic `this` is the subclass opening the artifact
    const { kind } = this
    // biome-ignore lint/complexity/noThisInStatic: `accepts` may be overridden by the subclass
    if (!this.accepts(record)) {
      throw invalid(
        `Artifact '${record.id}' is of kind '${record.kind}' (${record.mimeType}); ${reader ?? 'this reader'} reads '${kind}' artifacts only. Use artifact_head, artifact_cat or artifact_grep instead.`,
      )
    }
    return new this(store, record)
  }

  /** Whether this class's readers can read `record`. The base kind reads anything. */
  static accepts(_record: Retrievable): boolean {
    return true
  }

  /** Extra reader tools of this kind, beyond the base five. Names must start with `artifact_`. */
  static readers(): readonly Tool[] {
    return []
  }

  /** Recognizes artifact instances across two copies of the package. */
  static isInstance(value: unknown): value is SpooledArtifact {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[ARTIFACT_BRAND] === true
    )
  }

  get id(): string {
    return this.retrievable.id
  }
  get kind(): string {
    return this.retrievable.kind
  }
  get size(): number {
    return this.retrievable.size
  }
  get mimeType(): string {
    return this.retrievable.mimeType
  }

  /** The spooled bytes; `E_ARTIFACT_NOT_FOUND` if they were deleted. */
  async bytes(): Promise<Uint8Array> {
    const bytes = await this.store.get(this.id)
    if (!bytes) throw notFound(this.id)
    return bytes
  }

  /** The content decoded as text and split into lines, or why it is binary. */
  async content(): Promise<ArtifactText> {
    return decodeArtifactText(await this.bytes(), this.retrievable)
  }

  /** The first `lines` lines (default 200, at most 2,000), within the byte cap. */
  async head(
    options: { lines?: number; maxBytes?: number } = {},
  ): Promise<LineWindow | BinaryContent> {
    const count = lineCount(options.lines, 'lines')
    const content = await this.content()
    if (content.binary) return content
    return readLinesForward(content.lines, 0, count, byteCap(options.maxBytes))
  }

  /** The last `lines` lines (default 200, at most 2,000), within the byte cap. */
  async tail(
    options: { lines?: number; maxBytes?: number } = {},
  ): Promise<LineWindow | BinaryContent> {
    const count = lineCount(options.lines, 'lines')
    const content = await this.content()
    if (content.binary) return content
    return readLinesBackward(content.lines, count, byteCap(options.maxBytes))
  }

  /**
   * A line range or a byte range, within the caps (see `catContent`). Throws
   * `E_ARTIFACT_READ_INVALID` for a range that mixes lines and bytes, is
   * reversed, or starts past the end.
   */
  async cat(
    range: CatRange = {},
    maxBytes?: number,
  ): Promise<LineWindow | ByteWindow | BinaryContent> {
    return catContent(await this.bytes(), this.retrievable, range, maxBytes)
  }

  /** Lines matching `options.pattern` (literal unless `regex: true`) with context, within the caps. */
  async grep(options: GrepOptions, maxBytes?: number): Promise<GrepResult | BinaryContent> {
    if (typeof options?.pattern !== 'string') throw invalid('pattern must be a string.')
    return grepContent(await this.bytes(), this.retrievable, options, maxBytes)
  }

  /** The record plus whether the content is binary and, for text, its line count. */
  async stat(): Promise<ArtifactStat> {
    const r = this.retrievable
    const content = await this.content()
    return {
      id: r.id,
      kind: r.kind,
      mimeType: r.mimeType,
      size: r.size,
      ...(r.title === undefined ? {} : { title: r.title }),
      provenance: r.provenance,
      trusted: r.trusted,
      createdAt: new Date(r.createdAt).toISOString(),
      binary: content.binary,
      ...(content.binary ? {} : { lines: content.lines.length }),
    }
  }
}
Object.defineProperty(SpooledArtifact.prototype, ARTIFACT_BRAND, { value: true })
Object.defineProperty(SpooledArtifact, ARTIFACT_CLASS_BRAND, { value: true })

/** The error for an id no store holds. The id is echoed only when it looks like one. */
export function notFound(id: string): SkillHostError {
  const shown = /^[\w.-]{1,64}$/.test(id) ? `'${id}'` : 'with that id'
  return new SkillHostError(
    'E_ARTIFACT_NOT_FOUND',
    `No artifact ${shown}. Artifact ids look like r_0123456789abcdef and come from tool results or skill handles.`,
    { data: { id: id.slice(0, 64) } },
  )
}
