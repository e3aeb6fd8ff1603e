import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'

const LIST_CHANGED = 'notifications/resources/list_changed'

/**
 * Who hears that a server's skill list may have changed. The Skills
 * Extension defines no notification of its own; a server (skillhost's does)
 * sends `notifications/resources/list_changed` when its catalog changes.
 * While anyone listens and `follow` is on, the client's handler for that
 * notification is this one (the SDK keeps one handler per method), removed
 * again when the last listener leaves. `changed()` tells the listeners,
 * once per microtask however often it is called, so a burst of
 * notifications is one rediscovery.
 */
export class RemoteListChanges {
  readonly #client: Client
  readonly #follow: boolean
  readonly #listeners = new Set<() => void>()
  #pending = false

  constructor(client: Client, follow: boolean) {
    this.#client = client
    this.#follow = follow
  }

  /** Adds a listener; the returned function removes it (once). */
  subscribe(listener: () => void): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two listeners.
    const entry = () => listener()
    if (this.#listeners.size === 0 && this.#follow)
      this.#client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        this.changed()
      })
    this.#listeners.add(entry)
    return () => {
      if (!this.#listeners.delete(entry)) return
      if (this.#listeners.size === 0 && this.#follow)
        this.#client.removeNotificationHandler(LIST_CHANGED)
    }
  }

  /** Tells every listener, coalesced per microtask; a listener that throws does not stop the others. */
  changed(): void {
    if (this.#pending) return
    this.#pending = true
    queueMicrotask(() => {
      this.#pending = false
      for (const listener of [...this.#listeners]) {
        try {
          listener()
        } catch {
          // One listener's failure is its own.
        }
      }
    })
  }
}
