import { SkillHostError } from '../errors.js'
import type { Retrievable } from '../retrievable.js'
import { Tool } from '../tool.js'
import { baseMimeType, shortTitle } from './artifact-text.js'
import { type BinaryContent, isBinaryContent } from './artifact-types.js'
import { formatBinary } from './format-read.js'
import {
  formatOutline,
  MAX_SHOWN_TITLE,
  type OutlineEntry,
  parseMarkdownOutline,
} from './markdown-outline.js'
import { ARTIFACT_READ_LIMITS as L } from './read-limits.js'
import { SpooledArtifact } from './spooled-artifact.js'
import { readerSchema } from './text-readers.js'
import { type LineWindow, readLinesForward } from './text-window.js'

/** The readers only markdown artifacts have. */
export const MARKDOWN_READER_NAMES = Object.freeze([
  'artifact_md_outline',
  'artifact_md_section',
] as const)

/** Which section to read: a heading path (`"Usage > Options"`, matched from the end, case-insensitive) or an outline index. */
export interface SectionSelector {
  readonly heading?: string
  readonly index?: number
}

/** A section read: its heading and the lines shown. */
export interface SectionRead {
  readonly entry: OutlineEntry
  readonly window: LineWindow
}

const invalid = (message: string) => new SkillHostError('E_ARTIFACT_READ_INVALID', message)
const norm = (s: string) =>
  s
    .replace(/^#+\s*/, '')
    .trim()
    .toLowerCase()

/**
 * A markdown artifact (kind 'markdown', `text/markdown`). Adds the outline
 * (heading tree with line numbers) and section reads. Its readers accept kind
 * 'markdown' and anything spooled as `text/markdown`, so a host kind that
 * extends this class and keeps the MIME type is readable by them too.
 */
export class MarkdownArtifact extends SpooledArtifact {
  static override readonly kind: string = 'markdown'
  static override readonly mimeType: string = 'text/markdown'

  static override accepts(record: Retrievable): boolean {
    // biome-ignore lint/complexity/noThisInStatic: a subclass accepts its own kind too
    return record.kind === this.kind || baseMimeType(record.mimeType) === 'text/markdown'
  }

  static override readers(): readonly Tool[] {
    return markdownReaders()
  }

  /** The heading tree, or a description when the content is binary. */
  async outline(): Promise<OutlineEntry[] | BinaryContent> {
    const content = await this.content()
    return content.binary ? content : parseMarkdownOutline(content.lines)
  }

  /**
   * One section, subsections included, within the line and byte caps. Throws
   * `E_ARTIFACT_READ_INVALID` when the selector is missing, ambiguous or
   * matches no heading; the message lists what does exist.
   */
  async section(
    select: SectionSelector,
    maxBytes: number = L.maxBytes,
  ): Promise<SectionRead | BinaryContent> {
    const hasHeading = select.heading !== undefined
    if (hasHeading === (select.index !== undefined))
      throw invalid('Give exactly one of heading or index.')
    const content = await this.content()
    if (content.binary) return content
    const outline = parseMarkdownOutline(content.lines)
    if (outline.length === 0)
      throw invalid(`Artifact '${this.id}' has no headings; read it with artifact_cat.`)
    const entry = hasHeading
      ? pickByHeading(outline, select.heading as string)
      : pickByIndex(outline, select.index as number)
    const count = Math.min(entry.endLine - entry.line + 1, L.maxLines)
    const window = readLinesForward(
      content.lines,
      entry.line - 1,
      count,
      Math.min(maxBytes, L.maxBytes),
    )
    return { entry, window }
  }
}

function pickByIndex(outline: readonly OutlineEntry[], index: number): OutlineEntry {
  const entry = Number.isInteger(index) ? outline[index - 1] : undefined
  if (!entry)
    throw invalid(`index must be an integer from 1 to ${outline.length} (see artifact_md_outline).`)
  return entry
}

function pickByHeading(outline: readonly OutlineEntry[], heading: string): OutlineEntry {
  const want = heading
    .split('>')
    .map(norm)
    .filter((s) => s !== '')
  if (want.length === 0 || heading.length > 1_000)
    throw invalid('heading must name a heading, e.g. "Usage > Options".')
  const hits = outline.filter((h) => {
    if (h.path.length < want.length) return false
    const tail = h.path.slice(h.path.length - want.length).map(norm)
    return tail.every((t, k) => t === want[k])
  })
  if (hits.length === 1) return hits[0] as OutlineEntry
  const listed = (hits.length > 1 ? hits : outline)
    .slice(0, 20)
    .map((h) => `${h.index}. ${shownPath(h.path)}`)
    .join('; ')
  if (hits.length > 1)
    throw invalid(`heading matches ${hits.length} sections; pass index instead: ${listed}`)
  throw invalid(
    `No heading matches ${JSON.stringify(heading.slice(0, 200))}. Headings: ${listed}${outline.length > 20 ? '; …' : ''}`,
  )
}

/** A heading path for a header or message: each title cut to `MAX_SHOWN_TITLE`, so the cap holds. */
function shownPath(path: readonly string[]): string {
  return path.map((t) => shortTitle(t, MAX_SHOWN_TITLE)).join(' > ')
}

function formatSection(record: Retrievable, read: SectionRead): string {
  const { entry, window: w } = read
  const header = `[artifact ${record.id} section ${entry.index} "${shownPath(entry.path)}" lines ${w.firstLine}-${w.lastLine} of ${entry.line}-${entry.endLine}]`
  const notes: string[] = []
  if (w.partialLine)
    notes.push(
      `[line ${w.firstLine} is longer than the byte cap and was cut; read it with artifact_cat startByte/endByte]`,
    )
  if (w.lastLine < entry.endLine) {
    const args = { id: record.id, startLine: w.lastLine + 1, endLine: entry.endLine }
    notes.push(
      `[section truncated: ${entry.endLine - w.lastLine} more lines; continue with artifact_cat ${JSON.stringify(args)}]`,
    )
  }
  return [header, w.text, ...notes].join('\n')
}

let cached: readonly Tool[] | undefined

/** `artifact_md_outline` and `artifact_md_section`, built once and shared. */
export function markdownReaders(): readonly Tool[] {
  cached ??= Object.freeze([
    new Tool<{ id: string }>({
      name: 'artifact_md_outline',
      description: `The heading tree of a markdown artifact, with each section's index and line range (at most ${L.maxOutlineEntries} headings). Read a section with artifact_md_section.`,
      inputSchema: readerSchema(),
      handler: async (args, ctx) => {
        const artifact = await MarkdownArtifact.open(ctx.spool, args.id, 'artifact_md_outline')
        const outline = await artifact.outline()
        if (isBinaryContent(outline)) return formatBinary(artifact.retrievable, outline)
        if (outline.length === 0)
          return `[artifact ${artifact.id} has no headings; read it with artifact_head or artifact_cat]`
        return `[artifact ${artifact.id} outline: ${outline.length} headings]\n${formatOutline(outline, L.maxOutlineEntries)}`
      },
    }),
    new Tool<{ id: string } & SectionSelector>({
      name: 'artifact_md_section',
      description: `One section of a markdown artifact, subsections included: by heading path ("Usage > Options", matched from the end, case-insensitive) or by outline index. At most ${L.maxLines} lines and ${L.maxBytes} bytes; a cut says how to read on.`,
      inputSchema: readerSchema({
        heading: {
          type: 'string',
          description: 'Heading titles separated by ">", e.g. "Install > Linux".',
        },
        index: { type: 'integer', description: 'The section index from artifact_md_outline.' },
      }),
      handler: async (args, ctx) => {
        const artifact = await MarkdownArtifact.open(ctx.spool, args.id, 'artifact_md_section')
        const read = await artifact.section({ heading: args.heading, index: args.index })
        return isBinaryContent(read)
          ? formatBinary(artifact.retrievable, read)
          : formatSection(artifact.retrievable, read)
      },
    }),
  ])
  return cached
}
