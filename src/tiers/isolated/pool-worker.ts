import { Worker } from 'node:worker_threads'
import { SkillHostError } from '../../common/errors.js'
import { trackResource, type Untrack } from '../../common/leak-tracker.js'
import type { QuickJsPoolGuest } from './quickjs-pool-guest.js'
import type { FromWorker, WorkerBoot } from './worker-protocol.js'

/** One worker thread and the guest currently leasing it. */
export interface PoolWorker {
  readonly worker: Worker
  ready: boolean
  dead: boolean
  lease: QuickJsPoolGuest | undefined
  /** Settles when the worker is ready or gone. */
  readonly settled: Promise<void>
  /** Tells the leak tracker the worker is going (with `terminate()`'s promise) or gone. */
  readonly untrack: Untrack
}

/** What the pool hears from one worker. */
export interface PoolWorkerEvents {
  ready(w: PoolWorker): void
  lost(w: PoolWorker, err: Error | undefined): void
}

// Heap of the worker's own JavaScript: guest memory is WebAssembly memory
// outside it, so this only bounds the worker's bookkeeping and messages.
const WORKER_RESOURCE_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 }

// Workers cannot run TypeScript: from sources (tests), use the compiled twin.
function workerUrl(): URL {
  const here = import.meta.url
  if (here.endsWith('.ts')) return new URL('../../../dist/tiers/isolated/quickjs-worker.js', here)
  return new URL('./quickjs-worker.js', here)
}

/**
 * Starts one QuickJS worker with an empty environment and a bounded heap.
 * Messages go to the leasing guest; readiness and loss go to the pool.
 */
export function startPoolWorker(boot: WorkerBoot, events: PoolWorkerEvents): PoolWorker {
  const worker = new Worker(workerUrl(), {
    workerData: boot,
    resourceLimits: WORKER_RESOURCE_LIMITS,
    env: {},
    stdout: true,
    stderr: true,
  })
  // Nothing a guest does reaches these streams; drop whatever the engine writes.
  worker.stdout.resume()
  worker.stderr.resume()
  let settle = () => {}
  const settled = new Promise<void>((resolve) => {
    settle = resolve
  })
  const untrack = trackResource('worker', 'QuickJS guest worker')
  const w: PoolWorker = { worker, ready: false, dead: false, lease: undefined, settled, untrack }
  worker.on('message', (message: FromWorker) => {
    if (message.type !== 'ready') {
      w.lease?.onMessage(message)
      return
    }
    w.ready = true
    // An idle worker never keeps the host process alive.
    worker.unref()
    settle()
    events.ready(w)
  })
  worker.on('error', (err) => events.lost(w, err))
  worker.on('exit', () => {
    untrack()
    settle()
    events.lost(w, undefined)
  })
  return w
}

/** The error a running guest fails with when its worker dies under it. */
export function workerLostError(err: Error | undefined): SkillHostError {
  if ((err as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new SkillHostError(
      'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
      'The guest worker ran out of memory.',
    )
  }
  return new SkillHostError(
    'E_SKILL_ISOLATED_GUEST_FAILED',
    'The guest worker stopped unexpectedly.',
    {
      cause: err,
    },
  )
}
