/**
 * `skillhost/common`: the host primitives every layer and adapter shares.
 * Named exports only: what is listed here (and in api/report.md) is public;
 * everything else under `common/` is internal and may change.
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
export { catalogCutNote } from './catalog-cut-note.js'
export { type DisposableLike, DisposableStore } from './disposable.js'
export {
  ERROR_CODES,
  isSkillHostErrorCode,
  renderError,
  SkillHostError,
  type SkillHostErrorCode,
  type SkillHostErrorOptions,
} from './errors.js'
export { escapeXml } from './escape-markup.js'
export { FileSpoolStore } from './file-spool-store.js'
export {
  deny,
  GateDenied,
  type GateRequest,
  type GateVerdict,
  type ToolGate,
} from './gate.js'
export { Media } from './media.js'
export { MemorySpoolStore } from './memory-spool-store.js'
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
export type { JsonSchemaObject, ToolInputSchema } from './schema.js'
export { checkSpoolTag, SPOOL_TAG_MAX } from './spool-put-key.js'
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
  type SpoolStore,
} from './spool-store.js'
export {
  defineTool,
  TOOL_NAME_PATTERN,
  Tool,
  type ToolHandler,
  type ToolResult,
  type ToolSpec,
} from './tool.js'
export {
  type ToolRegistration,
  ToolRegistry,
  type ToolRegistryChange,
} from './tool-registry.js'
export { createTurnContext, type TurnContext, type TurnContextOptions } from './turn-context.js'
