import { AsyncLocalStorage } from 'node:async_hooks'
import { activeMetrics } from './active-metrics.js'

/** One session-workspace file a tool call read, wrote or deleted. */
export interface NotedWorkspaceFile {
  /** Relative to the workspace, `/`-separated, as the workspace's path rule gave it. */
  readonly path: string
  readonly change: 'read' | 'written' | 'deleted'
  /** The file's size when the call saw it; 0 when deleted. */
  readonly size: number
}

/** What one call noted: at most `WORKSPACE_FILES_NOTED_MAX` files, and how many more there were. */
export interface NotedWorkspaceFiles {
  readonly files: readonly NotedWorkspaceFile[]
  readonly dropped: number
}

/** Most files one call notes; a call that touched more is counted, not listed. */
export const WORKSPACE_FILES_NOTED_MAX = 100

interface Sink {
  files: NotedWorkspaceFile[]
  dropped: number
}

// Keyed by the async context of the call an adapter runs, not by the turn
// context: lifecycle and workspace tools share the session context, and two
// calls in flight on it must not see each other's files.
const current = new AsyncLocalStorage<Sink>()

/**
 * Tells the adapter running this call which workspace files it touched (the
 * workspace tools and the script tier call it). Outside `collectWorkspaceFiles`
 * it does nothing. A later note of a path replaces its earlier one.
 */
export function noteWorkspaceFiles(files: Iterable<NotedWorkspaceFile>): void {
  const sink = current.getStore()
  if (sink === undefined) return
  const metrics = activeMetrics()
  for (const file of files) {
    if (file.change === 'written') metrics?.workspaceBytes('disk', file.size)
    const at = sink.files.findIndex((f) => f.path === file.path)
    if (at >= 0) sink.files[at] = file
    else if (sink.files.length < WORKSPACE_FILES_NOTED_MAX) sink.files.push(file)
    else sink.dropped++
  }
}

/**
 * Runs one tool call and returns what it noted with `noteWorkspaceFiles`,
 * whether it succeeded or threw (a failed script can still have made files).
 */
export async function collectWorkspaceFiles<T>(
  run: () => Promise<T>,
): Promise<
  { outcome: { ok: true; value: T } | { ok: false; error: unknown } } & NotedWorkspaceFiles
> {
  const sink: Sink = { files: [], dropped: 0 }
  const outcome = await current.run(sink, async () => {
    try {
      return { ok: true as const, value: await run() }
    } catch (error) {
      return { ok: false as const, error }
    }
  })
  return { outcome, files: sink.files, dropped: sink.dropped }
}

/**
 * Largest workspace file read or written whole: by `workspace_read` (which
 * spools it) and `workspace_write`, and handed out by an adapter
 * (`resources/read`, a file part). A larger file is refused, never cut.
 */
export const WORKSPACE_FILE_MAX_BYTES = 16 * 1024 * 1024
