/**
 * The internal entry of `common/`: what the adapters use of this layer
 * beyond its public entry (`skillhost/common`). Not in package.json
 * `exports`, so no user of the package can import it, and it may change with
 * any release. The adapters reach other layers only through their public
 * entries and internal entries like this one, as the CLI does
 * (test/layering.test.ts).
 */

export { activeMetrics } from './active-metrics.js'
export { decodeArtifactText, isTextMimeType } from './artifacts/artifact-text.js'
export { isReservedReaderName } from './artifacts/forge-artifact-readers.js'
export { type CallProgressNote, setCallProgressScope } from './call-progress.js'
export { escapeXml } from './escape-markup.js'
export { fileType, mediaTypeByName } from './file-type.js'
export { setResourceOwner, trackResource } from './leak-tracker.js'
export {
  guardSessionStore,
  isSessionStoreFailure,
  sessionStoreFailed,
} from './session-store-failed.js'
export { putIdempotencyKey } from './spool-put-key.js'
export { spoolFull } from './spool-quota.js'
export { spoolRangeStream } from './spool-range.js'
export { reviveSpooled } from './spool-store.js'
export {
  collectWorkspaceFiles,
  type NotedWorkspaceFile,
  type NotedWorkspaceFiles,
  WORKSPACE_FILE_MAX_BYTES,
} from './workspace-files-noted.js'
export {
  filesOut,
  readWholeFile,
  WORKSPACE_EMBED_MAX_BYTES,
  WORKSPACE_EMBED_TOTAL_BYTES,
  type WorkspaceFileOut,
  type WorkspaceFileReader,
} from './workspace-files-out.js'
