import type { UnavailableTool } from '../skill-model/unavailable-tool.js'
import type { SkillDescriptor, SkillRef, SkillSource } from '../sources/types.js'
import type { SkillFileHeads, TierForge } from '../tiers/tier-forge.js'
import type { SkillFiles } from './skill-files.js'

/** Characters of a file's start a tier sees to judge it (a shebang line fits many times over). */
const HEAD_CHARS = 1024

/**
 * The first chunk of one file, as text: one read of the source's stream,
 * then the stream is cancelled, so judging a skill's files never reads an
 * asset whole. Empty when the file cannot be read: a head is only a hint.
 */
async function readHead(source: SkillSource, ref: SkillRef, path: string): Promise<string> {
  try {
    const reader = (await source.read(ref, path)).getReader()
    const { value } = await reader.read()
    await reader.cancel().catch(() => undefined)
    return new TextDecoder().decode(value?.subarray(0, HEAD_CHARS) ?? new Uint8Array())
  } catch {
    return ''
  }
}

/**
 * What each tier withholds from a loaded skill under this host's options
 * (`TierForge.withheld`: the script tier's `run_<skill>_script` under
 * `undeclared: 'deny'`), judged from the files the load indexed. Tiers
 * without the hook add nothing, and no file is read unless one has it.
 */
export async function withheldTools(
  tiers: readonly TierForge[],
  descriptor: SkillDescriptor,
  files: SkillFiles,
  source: SkillSource,
  ref: SkillRef,
): Promise<UnavailableTool[]> {
  const judges = tiers.flatMap((t) => (t.withheld === undefined ? [] : [t.withheld.bind(t)]))
  if (judges.length === 0) return []
  const heads: SkillFileHeads = {
    paths: files.page('', 0, files.total).files.map((f) => f.path),
    readHead: (path) => readHead(source, ref, path),
  }
  const found: UnavailableTool[] = []
  for (const judge of judges) found.push(...(await judge(descriptor, heads)))
  return found
}
