import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { ChangeListeners } from '../../../sources/internal.js'

const LIST_CHANGED = 'notifications/resources/list_changed'

/** How long notices are gathered into one telling by default: the folder watcher's debounce. */
export const DEFAULT_REMOTE_DEBOUNCE_MS = 100

type NotificationHandler = (notification: unknown) => Promise<void> | void

/**
 * The handler the client already has for `method`, if the SDK lets it be
 * seen. The SDK keeps one handler per method and has no getter: its table is
 * read where it is, and when that changes nothing is found and the source's
 * handler simply takes the place (documented on `McpSkillSourceOptions.watch`).
 */
function handlerOf(client: Client, method: string): NotificationHandler | undefined {
  const table = (client as unknown as { _notificationHandlers?: unknown })._notificationHandlers
  return table instanceof Map ? (table.get(method) as NotificationHandler | undefined) : undefined
}

/**
 * Who hears that a server's skill list may have changed. The Skills
 * Extension defines no notification of its own; a server (skillhost's does)
 * sends `notifications/resources/list_changed` when its catalog changes.
 * While anyone listens and `follow` is on, the client's handler for that
 * notification is this one, which first calls the handler the host had set
 * (the SDK keeps one per method); the host's is put back when the last
 * listener leaves. `changed()` tells the listeners once `debounceMs` after
 * the first notice of a burst (`ChangeListeners`, as the folder watcher
 * does): a server sending 200 notices 1 ms apart costs a few rediscoveries,
 * not 200.
 */
export class RemoteListChanges {
  readonly #client: Client
  readonly #follow: boolean
  readonly #listeners: ChangeListeners
  /** The host's handler this one stands in front of, while it does. */
  #previous: NotificationHandler | undefined

  constructor(client: Client, follow: boolean, debounceMs = DEFAULT_REMOTE_DEBOUNCE_MS) {
    this.#client = client
    this.#follow = follow
    this.#listeners = new ChangeListeners(debounceMs)
  }

  /** Adds a listener; the returned function removes it (once). */
  subscribe(listener: () => void): () => void {
    if (this.#listeners.size === 0 && this.#follow) this.#install()
    // A wrapper per subscription, so the same function subscribed twice is two listeners.
    const remove = this.#listeners.add(() => listener())
    let removed = false
    return () => {
      if (removed) return
      removed = true
      remove()
      if (this.#listeners.size === 0 && this.#follow) this.#uninstall()
    }
  }

  /** Tells every listener once the burst this notice opens has passed; a listener that throws does not stop the others. */
  changed(): void {
    this.#listeners.changed()
  }

  #install(): void {
    const previous = handlerOf(this.#client, LIST_CHANGED)
    this.#previous = previous
    this.#client.setNotificationHandler(ResourceListChangedNotificationSchema, async (n) => {
      this.changed()
      await previous?.(n)
    })
  }

  #uninstall(): void {
    const previous = this.#previous
    this.#previous = undefined
    if (previous === undefined) this.#client.removeNotificationHandler(LIST_CHANGED)
    else
      this.#client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => previous(n))
  }
}
