import type { Readable, Writable } from 'node:stream'

/** What bwrap reported on its `--json-status-fd`, filled in as it arrives. */
export interface BwrapStatus {
  /** Host pid of the sandbox's first process; set once setup succeeded. */
  childPid?: number
  /** Inode of the sandbox's pid namespace, for the post-call `/proc` scan. */
  pidNamespace?: number
  /** The command's exit code (128 + N when killed by signal N inside). */
  exitCode?: number
}

/**
 * Parses bwrap's JSON status stream (one JSON object per line) into a live
 * `BwrapStatus`. Unparseable lines are ignored: the status only refines what
 * the process exit already says.
 */
export function readBwrapStatus(stream: Readable | Writable | null | undefined): BwrapStatus {
  const status: BwrapStatus = {}
  const readable = stream as Readable | null | undefined
  if (!readable || typeof readable.on !== 'function') return status
  let buffered = ''
  const take = (line: string) => {
    if (line.trim() === '') return
    try {
      const doc = JSON.parse(line) as Record<string, unknown>
      if (typeof doc['child-pid'] === 'number') status.childPid = doc['child-pid']
      if (typeof doc['pid-namespace'] === 'number') status.pidNamespace = doc['pid-namespace']
      if (typeof doc['exit-code'] === 'number') status.exitCode = doc['exit-code']
    } catch {
      // not a status document
    }
  }
  readable.setEncoding('utf8')
  readable.on('data', (chunk: string) => {
    buffered += chunk
    let newline = buffered.indexOf('\n')
    while (newline >= 0) {
      take(buffered.slice(0, newline))
      buffered = buffered.slice(newline + 1)
      newline = buffered.indexOf('\n')
    }
  })
  readable.on('end', () => take(buffered))
  return status
}
