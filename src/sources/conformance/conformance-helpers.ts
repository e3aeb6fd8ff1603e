import { check } from '../../common/conformance/conformance-check.js'
import { streamToBytes } from '../reading/bytes-to-stream.js'
import type { DiscoveredSkill, DiscoverOptions, SkillSource } from '../types.js'

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

/** Discovers and returns the first skill, failing clearly when there is none. */
export async function firstSkill(source: SkillSource): Promise<DiscoveredSkill> {
  const [skill] = await discoverAll(source)
  check(skill, 'discover() yielded no skill; the conformance kit needs a source with at least one')
  return skill
}
