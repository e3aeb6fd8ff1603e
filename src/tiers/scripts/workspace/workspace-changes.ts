/**
 * The one place a session workspace says it changed: every write through
 * it (`SessionWorkspace.put`, `remove`) and every script call that ran in it
 * (`WorkspaceCall`) emits here, and whoever shows the workspace (the MCP
 * adapter's `notifications/resources/list_changed`) listens here, so no entry
 * point can change the workspace unannounced.
 */
export class WorkspaceChanges {
  readonly #listeners = new Set<() => void>()

  /** Calls `listener` after each change until the returned function is called. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  /** Tells every listener the workspace changed. A listener that throws does not stop the others or the write. */
  emit(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener()
      } catch {
        // A listener's failure is its own; the change already happened.
      }
    }
  }
}
