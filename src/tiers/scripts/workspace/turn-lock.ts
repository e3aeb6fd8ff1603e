/**
 * Shared-or-exclusive turns on a workspace folder: script calls share it
 * (each sees the others' files as a shell would), a host or model write
 * takes it alone, so a write never interleaves with a running script.
 * Safety does not rest on it (every host operation works from descriptors),
 * consistency does.
 */
export class TurnLock {
  #shared = 0
  #exclusive = false
  readonly #waiting: { exclusive: boolean; go: () => void }[] = []

  /** Runs `work` in a shared or exclusive turn, after the turns queued before it. */
  async run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    const release = await this.take(exclusive)
    try {
      return await work()
    } finally {
      release()
    }
  }

  /**
   * Takes a shared or exclusive turn, after the turns queued before it, and
   * returns its release (idempotent): a script call holds its turn from
   * before its run until its changes are read (`WorkspaceCall`).
   */
  async take(exclusive: boolean): Promise<() => void> {
    await new Promise<void>((go) => {
      this.#waiting.push({ exclusive, go })
      this.#pump()
    })
    let released = false
    return () => {
      if (released) return
      released = true
      if (exclusive) this.#exclusive = false
      else this.#shared -= 1
      this.#pump()
    }
  }

  #pump(): void {
    while (this.#waiting.length > 0 && !this.#exclusive) {
      const next = this.#waiting[0] as { exclusive: boolean; go: () => void }
      if (next.exclusive && this.#shared > 0) return
      this.#waiting.shift()
      if (next.exclusive) this.#exclusive = true
      else this.#shared += 1
      next.go()
      if (next.exclusive) return
    }
  }
}

const LOCKS = new Map<string, { lock: TurnLock; refs: number }>()

/**
 * The one lock of a folder, by its device and inode, shared by every
 * session workspace of this process that uses the folder (`serve
 * --workspace DIR` gives one folder to every session). `release` drops this
 * user's reference; the lock is forgotten with its last user.
 */
export function folderLock(st: { dev: number; ino: number }): {
  lock: TurnLock
  release: () => void
} {
  const key = `${st.dev}:${st.ino}`
  let slot = LOCKS.get(key)
  if (slot === undefined) {
    slot = { lock: new TurnLock(), refs: 0 }
    LOCKS.set(key, slot)
  }
  slot.refs += 1
  const held = slot
  let released = false
  return {
    lock: held.lock,
    release: () => {
      if (released) return
      released = true
      held.refs -= 1
      if (held.refs === 0 && LOCKS.get(key) === held) LOCKS.delete(key)
    },
  }
}
