import type { JsonSchemaObject } from '../schema.js'
import { Tool } from '../tool.js'
import type { GrepOptions } from './artifact-grep.js'
import { type CatRange, isBinaryContent } from './artifact-types.js'
import { formatBinary, formatByteWindow, formatGrep, formatLineWindow } from './format-read.js'
import { ARTIFACT_READ_LIMITS as L } from './read-limits.js'
import { SpooledArtifact } from './spooled-artifact.js'

/** The five readers every artifact kind has. */
export const TEXT_READER_NAMES = Object.freeze([
  'artifact_head',
  'artifact_tail',
  'artifact_grep',
  'artifact_cat',
  'artifact_stat',
] as const)

/** The `id` property every reader schema starts with. */
export const ARTIFACT_ID_PROPERTY = Object.freeze({
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: 'The artifact id, e.g. r_0123456789abcdef.',
})

/** A closed object schema with a required `id` plus `properties`. Ranges are checked by the reader, not the schema, so a bad range is `E_ARTIFACT_READ_INVALID`. */
export function readerSchema(
  properties: Record<string, JsonSchemaObject> = {},
  required: string[] = [],
): JsonSchemaObject {
  return {
    type: 'object',
    properties: { id: ARTIFACT_ID_PROPERTY, ...properties },
    required: ['id', ...required],
    additionalProperties: false,
  }
}

const int = (description: string) => ({ type: 'integer', description })
const caps = `At most ${L.maxLines} lines and ${L.maxBytes} bytes per call; cuts are reported with the call that reads on.`

let cached: readonly Tool[] | undefined

/**
 * The base readers: `artifact_head`, `artifact_tail`, `artifact_grep`,
 * `artifact_cat`, `artifact_stat`. They read from `ctx.spool`, hold no state,
 * and are built once and shared (tools are frozen).
 */
export function textReaders(): readonly Tool[] {
  cached ??= Object.freeze([headReader(), tailReader(), grepReader(), catReader(), statReader()])
  return cached
}

/** `artifact_head`: the first lines. */
function headReader(): Tool {
  return new Tool<{ id: string; lines?: number }>({
    name: 'artifact_head',
    description: `First lines of a spooled artifact (default ${L.defaultLines}). ${caps}`,
    inputSchema: readerSchema({
      lines: int(`How many lines (1-${L.maxLines}, default ${L.defaultLines}).`),
    }),
    handler: async (args, ctx) => {
      const artifact = await SpooledArtifact.open(ctx.spool, args.id, 'artifact_head')
      const read = await artifact.head({ lines: args.lines })
      return isBinaryContent(read)
        ? formatBinary(artifact.retrievable, read)
        : formatLineWindow(artifact.retrievable, read, 'forward')
    },
  })
}

/** `artifact_tail`: the last lines. */
function tailReader(): Tool {
  return new Tool<{ id: string; lines?: number }>({
    name: 'artifact_tail',
    description: `Last lines of a spooled artifact (default ${L.defaultLines}). ${caps}`,
    inputSchema: readerSchema({
      lines: int(`How many lines (1-${L.maxLines}, default ${L.defaultLines}).`),
    }),
    handler: async (args, ctx) => {
      const artifact = await SpooledArtifact.open(ctx.spool, args.id, 'artifact_tail')
      const read = await artifact.tail({ lines: args.lines })
      return isBinaryContent(read)
        ? formatBinary(artifact.retrievable, read)
        : formatLineWindow(artifact.retrievable, read, 'backward')
    },
  })
}

/** `artifact_grep`: matching lines with context, literal or RE2. */
function grepReader(): Tool {
  return new Tool<{ id: string } & GrepOptions>({
    name: 'artifact_grep',
    description: `Lines of a spooled artifact that contain a pattern, with line numbers ("12:" match, "11-" context). Literal by default; regex: true for an RE2 regex (linear time; backreferences and lookaround are refused). Up to ${L.maxMatches} matches, ${L.maxContextLines} context lines, ${L.maxBytes} bytes.`,
    inputSchema: readerSchema(
      {
        pattern: {
          type: 'string',
          description: `Text to find (at most ${L.maxPatternLength} characters).`,
        },
        regex: {
          type: 'boolean',
          description: 'Treat pattern as a regular expression. Default false.',
        },
        ignoreCase: { type: 'boolean', description: 'Match case-insensitively. Default false.' },
        context: int(
          `Lines of context before and after each match (0-${L.maxContextLines}, default 0).`,
        ),
        maxMatches: int(
          `Most matches to return (1-${L.maxMatches}, default ${L.defaultMaxMatches}).`,
        ),
      },
      ['pattern'],
    ),
    handler: async (args, ctx) => {
      const artifact = await SpooledArtifact.open(ctx.spool, args.id, 'artifact_grep')
      const { id: _id, ...options } = args
      const read = await artifact.grep(options)
      return isBinaryContent(read)
        ? formatBinary(artifact.retrievable, read)
        : formatGrep(artifact.retrievable, args.pattern, args.regex === true, read)
    },
  })
}

/** `artifact_cat`: a line or byte range. */
function catReader(): Tool {
  return new Tool<{ id: string } & CatRange>({
    name: 'artifact_cat',
    description: `A range of a spooled artifact: lines startLine..endLine (1-based, inclusive) or bytes startByte..endByte (0-based, end exclusive), not both. Default: ${L.defaultLines} lines from line 1. ${caps}`,
    inputSchema: readerSchema({
      startLine: int('First line, 1-based.'),
      endLine: int('Last line, inclusive.'),
      startByte: int('First byte, 0-based.'),
      endByte: int('Byte after the last one.'),
    }),
    handler: async (args, ctx) => {
      const artifact = await SpooledArtifact.open(ctx.spool, args.id, 'artifact_cat')
      const { id: _id, ...range } = args
      const read = await artifact.cat(range)
      if (isBinaryContent(read)) return formatBinary(artifact.retrievable, read)
      return 'startByte' in read
        ? formatByteWindow(artifact.retrievable, read)
        : formatLineWindow(artifact.retrievable, read, 'forward')
    },
  })
}

/** `artifact_stat`: what the artifact is. */
function statReader(): Tool {
  return new Tool<{ id: string }>({
    name: 'artifact_stat',
    description:
      'What a spooled artifact is: kind, MIME type, size in bytes and lines, title, provenance, trust.',
    inputSchema: readerSchema(),
    handler: async (args, ctx) => {
      const artifact = await SpooledArtifact.open(ctx.spool, args.id, 'artifact_stat')
      return JSON.stringify(await artifact.stat(), null, 2)
    },
  })
}
