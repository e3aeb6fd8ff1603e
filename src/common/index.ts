/**
 * `skillhost/common`: the host primitives every layer and adapter shares.
 * Named exports only: what is listed here (and in api/report.md) is public;
 * everything else under `common/` is internal and may change. The share the
 * root entry also exports is `essentials.ts`, re-exported whole.
 */
export {
  ARTIFACT_ID_PROPERTY,
  ARTIFACT_KIND_PATTERN,
  ARTIFACT_READ_LIMITS,
  type ArtifactClass,
  type ArtifactReadLimits,
  type ArtifactSpoolMeta,
  type ArtifactStat,
  type ArtifactText,
  artifactKindOf,
  type BinaryContent,
  BUILTIN_ARTIFACT_KINDS,
  type CatRange,
  forgeArtifactReaders,
  isArtifactClass,
  JsonArtifact,
  MarkdownArtifact,
  READER_NAME_PREFIX,
  RESERVED_READER_NAMES,
  readerSchema,
  SpooledArtifact,
} from './artifacts/index.js'
export { LABEL_VALUE_MAX, OVERFLOW_LABEL } from './bounded-label.js'
export { type DisposableLike, DisposableStore } from './disposable.js'
export { escapeControls, escapeLine, quoteName } from './escape-text.js'
export * from './essentials.js'
export { Media } from './media.js'
export {
  type PruneSpoolOptions,
  type PruneSpoolResult,
  pruneSpoolDirectories,
  type SpoolRetention,
} from './prune-spool-directories.js'
export {
  type ProjectedRetrievable,
  type Provenance,
  type Retrievable,
  RetrievableSet,
} from './retrievable.js'
export {
  type MetricsStoreKind,
  SKILL_LABEL_CAP,
  SkillHostMetrics,
  type SkillHostMetricsOptions,
  type ToolCallKind,
} from './skill-host-metrics.js'
export { checkSpoolTag, SPOOL_TAG_MAX, spoolContentKey } from './spool-put-key.js'
export {
  SPOOL_QUOTA_DEFAULTS,
  type SpoolQuotaOptions,
  type SpoolQuotaUsage,
} from './spool-quota.js'
export { type ResolvedSpoolRange, resolveSpoolRange } from './spool-range.js'
export {
  describeSpooled,
  newSpoolId,
  SPOOL_ID_PATTERN,
  type SpoolByteRange,
  type SpoolContent,
  type SpoolMeta,
  type SpoolPruneOptions,
  type SpoolPruneResult,
  type SpoolPutOptions,
} from './spool-store.js'
export { TOOL_NAME_PATTERN } from './tool.js'
