import type { SkillRecord } from './skill-record.js'
import type { LoadResult } from './types.js'

/** What a load reports: the body inline, or the handle the model reads through. */
export function toLoadResult(record: SkillRecord, tools: string[]): LoadResult {
  const body = record.body
  return {
    id: record.id,
    version: record.version,
    channel: record.channel,
    tools,
    unavailableTools: record.unavailableTools,
    ...(body && record.channel === 'inline' ? { body: body.text } : {}),
    ...(body && record.channel === 'handle'
      ? { handle: { id: body.retrievable.id, size: body.retrievable.size, text: body.text } }
      : {}),
  }
}
