import type { Retrievable } from '../retrievable.js'
import { splitLines } from './artifact-text.js'
import { JsonArtifact } from './json-artifact.js'
import { MarkdownArtifact } from './markdown-artifact.js'
import { formatOutline, type OutlineEntry, parseMarkdownOutline } from './markdown-outline.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'
import { SpooledArtifact } from './spooled-artifact.js'

/** Most outline entries a handle lists; the full outline is one `artifact_md_outline` call away. */
export const HANDLE_OUTLINE_ENTRIES = 40

/**
 * The short text a model sees for a `handle` projection: id, kind, MIME type,
 * size, title, the outline when given (markdown), and the reader tools that
 * read this artifact. `outline` is either parsed entries (`await
 * markdown.outline()`) or the markdown source itself, parsed here. Synchronous
 * and pure, so the caller builds the text once and reuses it every turn.
 */
export function describeArtifactHandle(
  artifact: SpooledArtifact | Retrievable,
  outline?: readonly OutlineEntry[] | string,
): string {
  const entries = typeof outline === 'string' ? parseMarkdownOutline(splitLines(outline)) : outline
  const r = SpooledArtifact.isInstance(artifact) ? artifact.retrievable : artifact
  const title = r.title === undefined ? '' : ` "${r.title.slice(0, 200)}"`
  const from = r.provenance.skill === undefined ? '' : ` from skill ${r.provenance.skill}`
  const lines = [
    `[artifact ${r.id}${title}: ${r.kind}, ${r.mimeType}, ${r.size} bytes${from}; not shown inline]`,
  ]
  const isMarkdown = MarkdownArtifact.accepts(r)
  if (entries !== undefined && entries.length > 0) {
    lines.push(
      'Outline (index. heading, line range):',
      formatOutline(entries, HANDLE_OUTLINE_ENTRIES),
    )
  }
  const readers: string[] = []
  if (isMarkdown)
    readers.push(
      `artifact_md_section {"id":"${r.id}","index":N} for a section`,
      'artifact_md_outline for the full outline',
    )
  if (JsonArtifact.accepts(r))
    readers.push(`artifact_json_query {"id":"${r.id}","path":"a.b[0]"} for a value`)
  readers.push(
    `artifact_grep to search`,
    `artifact_head / artifact_tail / artifact_cat to read lines (${ARTIFACT_READ_LIMITS.defaultLines} per call by default)`,
    'artifact_stat for details',
  )
  lines.push(`Read it with: ${readers.join('; ')}.`)
  return lines.join('\n')
}
