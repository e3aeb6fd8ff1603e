import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { SkillHostError } from '../../../common/index.js'
import type { SkillEntry } from './protocol.js'
import { listRemoteSkills } from './remote-skill-entries.js'

/** `McpSkillSourceOptions.requestTimeoutMs` when none is given. */
export const DEFAULT_REMOTE_REQUEST_TIMEOUT_MS = 20_000

/** A `resources/read` result, which a skill file arrives in. */
type ReadResult = Awaited<ReturnType<Client['readResource']>>

/**
 * The requests an `McpSkillSource` makes of its server, each with the
 * source's own deadline (`timeoutMs`) and the caller's signal. A request
 * past the deadline is abandoned and fails with `E_SKILL_SOURCE_FAILED`
 * naming the deadline, in skillhost's words rather than the SDK's.
 */
export class RemoteRequests {
  readonly #client: Client
  readonly #source: string
  readonly timeoutMs: number

  /** `source`: the source's id, named in the error. Refuses a deadline that is not a positive integer. */
  constructor(client: Client, source: string, timeoutMs = DEFAULT_REMOTE_REQUEST_TIMEOUT_MS) {
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
      throw new TypeError('requestTimeoutMs must be a positive integer')
    this.#client = client
    this.#source = source
    this.timeoutMs = timeoutMs
  }

  /** Every entry of every `skills/list` page (each page its own request). */
  list(signal?: AbortSignal): Promise<SkillEntry[]> {
    return this.#answered(() => listRemoteSkills(this.#client, this.#options(signal)))
  }

  /** One resource. */
  read(uri: string, signal?: AbortSignal): Promise<ReadResult> {
    return this.#answered(() => this.#client.readResource({ uri }, this.#options(signal)))
  }

  #options(signal?: AbortSignal): { timeout: number; signal?: AbortSignal } {
    return signal ? { timeout: this.timeoutMs, signal } : { timeout: this.timeoutMs }
  }

  async #answered<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (err) {
      if (!(err instanceof McpError && err.code === ErrorCode.RequestTimeout)) throw err
      throw new SkillHostError(
        'E_SKILL_SOURCE_FAILED',
        `The server behind source "${this.#source}" did not answer within ${this.timeoutMs} ms (requestTimeoutMs); try again later.`,
        { cause: err, data: { source: this.#source, timeoutMs: this.timeoutMs } },
      )
    }
  }
}

/** Runs `each` over `items`, at most `concurrency` at once; rejects with the first failure. */
export async function eachAtMost<T>(
  items: readonly T[],
  concurrency: number,
  each: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await each(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
}
