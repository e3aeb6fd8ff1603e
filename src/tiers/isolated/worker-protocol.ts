import type { EvaluationOutcome } from './evaluation.js'
import type { QuickJsBinary } from './quickjs-module.js'
import type { IsolationLimits } from './types.js'

/** What a QuickJS worker is started with. */
export interface WorkerBoot {
  /** Compiled once by the pool and shared: workers never compile the binary. */
  binary: QuickJsBinary
  /** The memory cap the worker prepares its first spare instance for. */
  memoryBytes: number
}

/** Messages from the pool to a worker. Only strings, numbers and plain records. */
export type ToWorker =
  | {
      type: 'run'
      runId: number
      source: string
      argsJson: string
      timeoutMs: number
      globals: string[]
      modules: Record<string, string>
      limits: IsolationLimits
    }
  | { type: 'reply'; runId: number; callId: number; ok: true; json: string | undefined }
  | { type: 'reply'; runId: number; callId: number; ok: false; message: string }

/** Messages from a worker to the pool. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'call'; runId: number; callId: number; name: string; argsJson: string | undefined }
  | { type: 'done'; runId: number; outcome: EvaluationOutcome }
