import { pathToFileURL } from 'node:url'
import { SkillHostError } from '../../common/errors.js'
import { Tool } from '../../common/tool.js'
import { type PinnedModule, pinnedModuleUrl } from '../lock/pinned-imports.js'

/**
 * Imports the ES module at `absPath` and returns every exported `Tool` (named
 * exports, the default export, and arrays of tools among them), each once.
 * `version` is added to the URL so a changed skill is imported afresh; Node
 * keeps every imported version in memory (ESM has no cache eviction).
 * With `pinned` (a locked skill), the whole graph the module loads is held
 * to the pinned files (see `pinnedModuleUrl`) and a breach is
 * `E_SKILL_NOT_PINNED`. Fails with `E_SKILL_SOURCE_FAILED` if the import
 * throws otherwise and `E_SKILL_MANIFEST_INVALID` if the module exports no tool.
 */
export async function importModuleTools(
  absPath: string,
  version: string,
  label: string,
  pinned?: PinnedModule,
): Promise<Tool[]> {
  let namespace: Record<string, unknown>
  try {
    const url = pinned
      ? await pinnedModuleUrl(absPath, version, pinned)
      : `${pathToFileURL(absPath).href}?v=${encodeURIComponent(version)}`
    namespace = (await import(url)) as Record<string, unknown>
  } catch (cause) {
    if (SkillHostError.is(cause, 'E_SKILL_NOT_PINNED')) throw cause
    throw new SkillHostError(
      'E_SKILL_SOURCE_FAILED',
      `The module ${label} could not be imported.`,
      { cause },
    )
  }
  const tools: Tool[] = []
  const seen = new Set<unknown>()
  const take = (value: unknown): void => {
    if (Tool.isInstance(value) && !seen.has(value)) {
      seen.add(value)
      tools.push(value)
    }
  }
  for (const value of Object.values(namespace)) {
    if (Array.isArray(value)) value.forEach(take)
    else take(value)
  }
  if (tools.length === 0) {
    throw new SkillHostError(
      'E_SKILL_MANIFEST_INVALID',
      `The module ${label} exports no Tool; export new Tool(...) values.`,
    )
  }
  return tools
}
