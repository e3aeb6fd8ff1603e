/**
 * Spooled artifacts (part of `skillhost/common`): a handle on spooled bytes
 * and the reader tools the model calls by id (`artifact_head`, `_tail`,
 * `_grep`, `_cat`, `_stat`), with the kinds that add readers (Markdown
 * outline and sections, JSON queries), the read caps, and the text the
 * readers answer with.
 */

export {
  ARTIFACT_KIND_PATTERN,
  artifactKindOf,
  isArtifactClass,
} from './artifact-class.js'
export {
  compileGrepPattern,
  type GrepOptions,
  type GrepResult,
  grepLines,
} from './artifact-grep.js'
export {
  type ArtifactText,
  baseMimeType,
  cutUtf8,
  decodeArtifactText,
  isContinuation,
  isTextMimeType,
  shortTitle,
  sliceWhole,
  splitLines,
  utf8Length,
} from './artifact-text.js'
export {
  type ArtifactClass,
  type ArtifactSpoolMeta,
  type ArtifactStat,
  type BinaryContent,
  type CatRange,
  isBinaryContent,
} from './artifact-types.js'
export {
  describeArtifactHandle,
  HANDLE_OUTLINE_ENTRIES,
} from './describe-artifact-handle.js'
export {
  BUILTIN_ARTIFACT_KINDS,
  forgeArtifactReaders,
  isReservedReaderName,
  READER_NAME_PREFIX,
  RESERVED_READER_NAMES,
} from './forge-artifact-readers.js'
export {
  JSON_READER_NAMES,
  JsonArtifact,
  type JsonQueryResult,
  jsonReaders,
} from './json-artifact.js'
export {
  describeJsonType,
  formatJsonPath,
  type JsonPathSegment,
  parseJsonPath,
  resolveJsonPath,
} from './json-path.js'
export {
  MARKDOWN_READER_NAMES,
  MarkdownArtifact,
  markdownReaders,
  type SectionRead,
  type SectionSelector,
} from './markdown-artifact.js'
export {
  formatOutline,
  MAX_SHOWN_TITLE,
  type OutlineEntry,
  parseMarkdownOutline,
} from './markdown-outline.js'
export {
  ARTIFACT_READ_LIMITS,
  type ArtifactReadLimits,
} from './read-limits.js'
export {
  ARTIFACT_CLASS_BRAND,
  notFound,
  SpooledArtifact,
} from './spooled-artifact.js'
export {
  ARTIFACT_ID_PROPERTY,
  readerSchema,
  TEXT_READER_NAMES,
  textReaders,
} from './text-readers.js'
export {
  type ByteWindow,
  type LineWindow,
  readByteRange,
  readLinesBackward,
  readLinesForward,
} from './text-window.js'
