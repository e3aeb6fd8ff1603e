/**
 * The internal entry of `manager/`: what the adapters use of this layer
 * beyond its public entry (`index.ts`, re-exported by the root entry). Not
 * in package.json `exports`, so no user of the package can import it, and it
 * may change with any release. The adapters reach other layers only through
 * their public entries and internal entries like this one, as the CLI does
 * (test/layering.test.ts).
 */

/** The session workspace as the manager hands it to adapters (`manager.workspace`). */
export type { ManagerWorkspace } from '../tiers/scripts/tier.js'
export { applySessionState, sameSessionState, sessionSkills } from './apply-session-state.js'
export { assertCatalogBudget } from './catalog-budget.js'
export { SerialQueue } from './serial-queue.js'
export type {
  SessionWorkspaceStore,
  StoredWorkspaceFile,
  WorkspaceStoreChange,
} from './session-state.js'
export {
  MIRRORED_FILE_MAX_BYTES,
  RESTORE_BATCH_FILES,
  WorkspaceMirror,
} from './workspace-mirror.js'
