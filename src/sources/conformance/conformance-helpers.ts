import { SkillHostError } from '../../common/errors.js'
import { streamToBytes } from '../reading/bytes-to-stream.js'
import type { DiscoveredSkill, DiscoverOptions, SkillSource } from '../types.js'

/** Throws a plain Error with `message` unless `condition` holds. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message)
}

/** Collects every skill a discovery yields. */
export async function discoverAll(
  source: SkillSource,
  options?: DiscoverOptions,
): Promise<DiscoveredSkill[]> {
  const out: DiscoveredSkill[] = []
  for await (const skill of source.discover(options)) out.push(skill)
  return out
}

/** Reads a source stream fully, checking every chunk is a Uint8Array. */
export async function readAll(stream: unknown): Promise<Uint8Array> {
  check(stream instanceof ReadableStream, 'read() must resolve to a ReadableStream')
  const chunks: Uint8Array[] = []
  const tee = (stream as ReadableStream<unknown>).pipeThrough(
    new TransformStream<unknown, Uint8Array>({
      transform(chunk, controller) {
        check(chunk instanceof Uint8Array, 'read() streams must yield Uint8Array chunks')
        chunks.push(chunk)
        controller.enqueue(chunk)
      },
    }),
  )
  return streamToBytes(tee)
}

/** Expects `action` to reject with a skillhost error of `code`; `what` names the call in messages. */
export async function expectCode(
  action: () => Promise<unknown>,
  code: string,
  what: string,
): Promise<void> {
  let result: unknown
  try {
    result = await action()
  } catch (err) {
    check(
      SkillHostError.isInstance(err),
      `${what} rejected with a non-skillhost error: ${String(err)}`,
    )
    check(err.code === code, `${what} rejected with ${err.code}; expected ${code}`)
    return
  }
  throw new Error(`${what} resolved (${typeof result}); expected a rejection with ${code}`)
}

/** Expects `action` to reject (with anything). */
export async function expectRejection(action: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await action()
  } catch {
    return
  }
  throw new Error(`${what} resolved; expected a rejection`)
}

/** Discovers and returns the first skill, failing clearly when there is none. */
export async function firstSkill(source: SkillSource): Promise<DiscoveredSkill> {
  const [skill] = await discoverAll(source)
  check(skill, 'discover() yielded no skill; the conformance kit needs a source with at least one')
  return skill
}
