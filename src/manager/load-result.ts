import type { ScriptTier } from './script-tier.js'
import { LOAD_RESULT_FILES, LOAD_RESULT_FILES_CHARS } from './skill-files.js'
import type { SkillRecord } from './skill-record.js'
import type { LoadResult } from './types.js'

/**
 * What a load reports: the body inline, or the handle the model reads
 * through, the first `LOAD_RESULT_FILES` files the skill ships (fewer
 * when their paths pass `LOAD_RESULT_FILES_CHARS` characters), and what its
 * script tools run with (read by tier 3, loaded when the manager has scripts).
 */
export function toLoadResult(
  record: SkillRecord,
  tools: string[],
  scriptTier: ScriptTier | undefined,
): LoadResult {
  const body = record.body
  const { files: page, total } = record.files.page('', 0, LOAD_RESULT_FILES)
  // Long paths end the page early, so a skill cannot flood the result with names.
  let chars = 0
  let n = 0
  for (const file of page) {
    if (n > 0 && chars + file.path.length > LOAD_RESULT_FILES_CHARS) break
    chars += file.path.length
    n += 1
  }
  const files = page.slice(0, n)
  const interpreters = scriptTier?.scriptToolInterpreters(record.tools) ?? []
  return {
    id: record.id,
    ref: record.ref,
    version: record.version,
    channel: record.channel,
    tools,
    unavailableTools: record.unavailableTools,
    ...(body && record.channel === 'inline' ? { body: body.text } : {}),
    ...(body && record.channel === 'handle'
      ? { handle: { id: body.retrievable.id, size: body.retrievable.size, text: body.text } }
      : {}),
    files,
    filesTotal: total,
    ...(record.descriptor.ignored?.length ? { ignored: record.descriptor.ignored } : {}),
    ...(interpreters.length > 0 ? { interpreters } : {}),
    ...(record.permissions?.length ? { permissions: record.permissions } : {}),
  }
}
