// Entry point of one pool worker: it evaluates one tool at a time and asks
// the pool for host globals. The pool terminates it on a hard deadline, so
// nothing here needs to survive a stuck evaluation.
import { parentPort, workerData } from 'node:worker_threads'
import { evaluateInQuickJs } from './evaluate-in-quickjs.js'
import { QuickJsInstanceReserve } from './quickjs-module.js'
import type { FromWorker, ToWorker, WorkerBoot } from './worker-protocol.js'

const port = parentPort
if (!port) throw new Error('quickjs-worker must run in a worker thread')
const boot = workerData as WorkerBoot
const reserve = new QuickJsInstanceReserve(boot.binary)
const replies = new Map<
  number,
  { resolve(json: string | undefined): void; reject(e: Error): void }
>()
let nextCallId = 0

const send = (message: FromWorker) => port.postMessage(message)

port.on('message', (message: ToWorker) => {
  if (message.type === 'reply') {
    const waiter = replies.get(message.callId)
    replies.delete(message.callId)
    if (!waiter) return
    if (message.ok) waiter.resolve(message.json)
    else waiter.reject(new Error(message.message))
    return
  }
  const { runId, limits } = message
  void evaluateInQuickJs({
    instances: reserve,
    source: message.source,
    argsJson: message.argsJson,
    timeoutMs: message.timeoutMs,
    globals: message.globals,
    modules: message.modules,
    limits,
    callGlobal: (name, argsJson) =>
      new Promise((resolve, reject) => {
        const callId = ++nextCallId
        replies.set(callId, { resolve, reject })
        send({ type: 'call', runId, callId, name, argsJson })
      }),
  }).then((outcome) => {
    replies.clear()
    send({ type: 'done', runId, outcome })
    // Prepare the next fresh instance, runtime and context while the pool
    // hands out the result: the next call only evaluates.
    setImmediate(() => void reserve.refill(limits.memoryBytes))
  })
})

void reserve.refill(boot.memoryBytes).then(() => send({ type: 'ready' }))
