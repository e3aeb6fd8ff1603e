import { SkillHostError } from '../errors.js'
import { Tool } from '../tool.js'
import { artifactKindOf, isArtifactClass } from './artifact-class.js'
import type { ArtifactClass } from './artifact-types.js'
import { JSON_READER_NAMES, JsonArtifact } from './json-artifact.js'
import { MARKDOWN_READER_NAMES, MarkdownArtifact } from './markdown-artifact.js'
import { SpooledArtifact } from './spooled-artifact.js'
import { TEXT_READER_NAMES, textReaders } from './text-readers.js'

/** Every built-in reader name. No skill tool may take one (nor any other `artifact_*` name). */
export const RESERVED_READER_NAMES: readonly string[] = Object.freeze([
  ...TEXT_READER_NAMES,
  ...MARKDOWN_READER_NAMES,
  ...JSON_READER_NAMES,
])

/** The prefix reserved for reader tools; a host kind's own readers must use it. */
export const READER_NAME_PREFIX = 'artifact_'

/**
 * True when `name` belongs to the readers: a built-in reader name or any name
 * starting with `artifact_`, so a reader added later can never collide with a
 * skill tool loaded today.
 */
export function isReservedReaderName(name: string): boolean {
  return name.startsWith(READER_NAME_PREFIX) || RESERVED_READER_NAMES.includes(name)
}

/** The kinds skillhost ships: 'text', 'markdown', 'json'. */
export const BUILTIN_ARTIFACT_KINDS: readonly ArtifactClass[] = Object.freeze([
  SpooledArtifact,
  MarkdownArtifact,
  JsonArtifact,
])

/**
 * The reader tools for the base kind plus each class in `kinds`, in a stable
 * order, each tool once. A kind's extra readers come from its static
 * `readers()`. Throws `E_INVALID_SKILLS_CONFIG` for a value that is not an
 * artifact class, a reader not named `artifact_*`, or two different tools
 * claiming one name. Built-in reader tools are shared, frozen and stateless:
 * they read from `ctx.spool`, so they keep working after a skill unloads.
 */
export function forgeArtifactReaders(kinds: Iterable<ArtifactClass> = []): Tool[] {
  const byName = new Map<string, Tool>()
  const add = (tool: Tool, kind: string) => {
    if (!Tool.isInstance(tool))
      throw config(`Artifact kind '${kind}' readers() returned something that is not a Tool.`)
    if (!tool.name.startsWith(READER_NAME_PREFIX)) {
      throw config(
        `Artifact kind '${kind}' declares reader '${tool.name}'; reader names must start with '${READER_NAME_PREFIX}'.`,
      )
    }
    const held = byName.get(tool.name)
    if (held !== undefined && held !== tool) {
      throw config(`Artifact kind '${kind}' declares a second tool named '${tool.name}'.`)
    }
    byName.set(tool.name, tool)
  }
  for (const tool of textReaders()) add(tool, 'text')
  for (const cls of kinds) {
    if (!isArtifactClass(cls))
      throw config('An artifact kind is not a class extending SpooledArtifact.')
    const kind = artifactKindOf(cls)
    const readers = cls.readers()
    if (!Array.isArray(readers))
      throw config(`Artifact kind '${kind}' readers() must return an array of tools.`)
    for (const tool of readers as readonly Tool[]) add(tool, kind)
  }
  return [...byName.values()]
}

function config(message: string): SkillHostError {
  return new SkillHostError('E_INVALID_SKILLS_CONFIG', message)
}
