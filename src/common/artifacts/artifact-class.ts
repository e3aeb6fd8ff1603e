import type { ArtifactClass } from './artifact-types.js'
import { ARTIFACT_CLASS_BRAND } from './spooled-artifact.js'

/** Artifact kind names: lowercase, short, provider- and log-safe. */
export const ARTIFACT_KIND_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/

/**
 * True for `SpooledArtifact` and every subclass, across two copies of the
 * package (the check is a `Symbol.for` brand the subclasses inherit, not
 * `instanceof`), provided its `kind` is a valid kind name. The manager uses
 * this to validate `artifactKinds` factories.
 */
export function isArtifactClass(value: unknown): value is ArtifactClass {
  if (typeof value !== 'function') return false
  const cls = value as unknown as Record<PropertyKey, unknown>
  return (
    cls[ARTIFACT_CLASS_BRAND] === true &&
    typeof cls.kind === 'string' &&
    ARTIFACT_KIND_PATTERN.test(cls.kind) &&
    typeof cls.accepts === 'function' &&
    typeof cls.readers === 'function'
  )
}

/** The kind an artifact class spools as. Throws a `TypeError` for anything that is not an artifact class. */
export function artifactKindOf(cls: unknown): string {
  if (!isArtifactClass(cls))
    throw new TypeError('Not an artifact class: expected SpooledArtifact or a subclass')
  return cls.kind
}
