import type { TreeEntry } from '../../../common/door/beneath.js'
import { type OutRead, readOut } from '../../../common/door/read-out.js'
import type { ScriptWorkspaceReport } from '../types.js'
import { diffTrees } from './diff-trees.js'
import { type ProtectedEntry, SessionWorkspace, unmeasurable } from './session-workspace.js'
import { WorkspaceWatch } from './workspace-watch.js'

/** Largest workspace file a call spools, and most bytes and files it spools in all (the door's `OutLimits`). */
export const WORKSPACE_SPOOL_LIMITS = {
  fileBytes: 16 * 1024 * 1024,
  bytes: 64 * 1024 * 1024,
  files: 100,
} as const

/** What opens a workspace when a call first needs it (the manager's `SessionWorkspaceSlot`). */
export interface WorkspaceOpener {
  open(): Promise<SessionWorkspace>
}

/** Where a call's workspace comes from: open already, or opened once the call may run. */
export type WorkspaceSource = SessionWorkspace | WorkspaceOpener

/** How the run ended, as `WorkspaceCall.finish` needs it. */
export interface RunEnd {
  /** The run threw (skillhost's refusal or a bug): nothing is measured. */
  readonly failed: boolean
  /** The caller's signal was aborted. */
  readonly aborted: boolean
  /** The sandbox reports the run killed by a signal (the caller's, or the watch's for the cap). */
  readonly killed: boolean
  /** Read each created or modified file back through the door, for the spool. */
  readonly readOut: boolean
}

/** What `finish` hands back: an abort, or the report and the files the door let out. */
export type WorkspaceCallEnd =
  | { readonly aborted: true }
  | {
      readonly aborted: false
      readonly report?: ScriptWorkspaceReport
      /** One per change that is not a deletion, in `report.changes` order, when `readOut` was asked. */
      readonly out?: readonly OutRead[]
    }

/**
 * One script call's hold on the session workspace, entered once before the
 * run (`begin`) and once after it (`finish`): the call's shared turn (host
 * writes wait), the walk before the run (a tree that cannot be measured
 * whole fails closed), the watch that kills a call growing past the cap,
 * and the version-control state opened by descriptor for the sandbox to
 * bind read-only. `finish` releases all of it, and for a call that ran
 * walks again, removes the version-control state the call made in a
 * deployer's folder, and reads each changed file back as the door lets it
 * out (`readOut`), so the spool gets bytes, never a path.
 */
export class WorkspaceCall {
  #finished = false
  /** The signal the run is killed by: the caller's, or the watch's once the workspace is past its cap. */
  readonly signal: AbortSignal

  private constructor(
    readonly workspace: SessionWorkspace,
    readonly protectedEntries: readonly ProtectedEntry[],
    readonly before: ReadonlyMap<string, TreeEntry>,
    private readonly watch: WorkspaceWatch,
    private readonly release: () => void,
  ) {
    this.signal = watch.signal
  }

  /** Opens the workspace from `source` when needed, takes the call's turn, walks it, watches it. */
  static async begin(
    source: WorkspaceSource,
    mount: string,
    signal: AbortSignal | undefined,
  ): Promise<WorkspaceCall> {
    // By shape, not class: a workspace from a second copy of the package is one too.
    const workspace = 'open' in source ? await source.open() : source
    const release = await workspace.takeCallTurn()
    let watch: WorkspaceWatch | undefined
    try {
      const before = await workspace.snapshot()
      // A workspace that cannot be measured whole could hide any amount of data: fail closed.
      if (!before.complete) throw unmeasurable(workspace.maxEntries)
      watch = new WorkspaceWatch(workspace, SessionWorkspace.usage(before.entries), signal)
      const entries = await workspace.openProtected(mount)
      return new WorkspaceCall(workspace, entries, before.entries, watch, release)
    } catch (err) {
      watch?.stop()
      release()
      throw err
    }
  }

  /**
   * Ends the hold (watch stopped, descriptors closed, turn released; once).
   * A run that failed measures nothing; one aborted by the caller, or
   * killed other than by the watch, is an abort; otherwise the report.
   * Announces a change (`SessionWorkspace.changes`) unless the report
   * shows none.
   */
  async finish(end: RunEnd): Promise<WorkspaceCallEnd> {
    if (this.#finished) return { aborted: false }
    this.#finished = true
    let changed = true
    try {
      this.watch.stop()
      for (const e of this.protectedEntries) await e.handle.close().catch(() => undefined)
      const overCap = this.watch.overCap !== undefined
      if (end.aborted || (end.killed && !overCap)) return { aborted: true }
      if (end.failed) return { aborted: false }
      const measured = await this.#measured(overCap, end.readOut)
      changed = measured.aborted || measured.report?.changes.length !== 0
      return measured
    } finally {
      this.release()
      // A run stopped or unmeasured may have changed files too: only a measured "nothing" is silent.
      if (changed) this.workspace.changes.emit()
    }
  }

  async #measured(overCap: boolean, wanted: boolean): Promise<WorkspaceCallEnd> {
    const { workspace, before } = this
    const after = await workspace.snapshot()
    // The door: version-control state this call made in a deployer's folder does not stay.
    const removed = await workspace.sweepVersionControl(before, after.entries)
    const changes = diffTrees(before, after.entries)
    const report: ScriptWorkspaceReport = {
      changes,
      // The walk before was complete, or the call did not begin.
      complete: after.complete,
      bytes: SessionWorkspace.usage(after.entries),
      maxBytes: workspace.maxBytes,
      overCap,
      ...(removed.length > 0 && { removed }),
    }
    if (!wanted) return { aborted: false, report }
    const leaving = changes.filter((c) => c.change !== 'deleted')
    const out = await readOut(
      leaving.map((c) => ({ path: c.path, kind: c.kind, size: c.size })),
      { read: (path, max) => workspace.get(path, max) },
      { limits: WORKSPACE_SPOOL_LIMITS },
    )
    return { aborted: false, report, out }
  }
}
