import type { Retrievable } from '../retrievable.js'
import type { SpoolMeta, SpoolStore } from '../spool-store.js'
import type { Tool } from '../tool.js'
import type { SpooledArtifact } from './spooled-artifact.js'

/** What a caller says about content it spools as an artifact; the kind comes from the class. */
export type ArtifactSpoolMeta = Omit<SpoolMeta, 'kind'>

/** A class that makes artifacts of one kind: `SpooledArtifact` or a subclass. */
export interface ArtifactClass<T extends SpooledArtifact = SpooledArtifact> {
  new (store: SpoolStore, retrievable: Retrievable): T
  readonly kind: string
  readonly mimeType: string
  accepts(record: Retrievable): boolean
  readers(): readonly Tool[]
}

/** Returned instead of text when content is binary: what it is, never its bytes. */
export interface BinaryContent {
  readonly binary: true
  readonly reason: string
}

/** Which part of an artifact `cat` reads: a line range (1-based, inclusive) or a byte range (0-based, end exclusive). */
export interface CatRange {
  readonly startLine?: number
  readonly endLine?: number
  readonly startByte?: number
  readonly endByte?: number
}

/** Everything `stat` knows about an artifact; `lines` only for text. */
export interface ArtifactStat {
  readonly id: string
  readonly kind: string
  readonly mimeType: string
  readonly size: number
  readonly title?: string
  readonly provenance: Retrievable['provenance']
  readonly trusted: boolean
  readonly createdAt: string
  readonly binary: boolean
  readonly lines?: number
}

/** True when a read returned a description of binary content rather than text. */
export function isBinaryContent(value: unknown): value is BinaryContent {
  return typeof value === 'object' && value !== null && (value as BinaryContent).binary === true
}
