import { SkillHostError } from '../errors.js'
import type { Retrievable } from '../retrievable.js'
import { Tool } from '../tool.js'
import { baseMimeType, cutUtf8, utf8Length } from './artifact-text.js'
import { type BinaryContent, isBinaryContent } from './artifact-types.js'
import { formatBinary } from './format-read.js'
import { describeJsonType, formatJsonPath, parseJsonPath, resolveJsonPath } from './json-path.js'
import { ARTIFACT_READ_LIMITS as L } from './read-limits.js'
import { SpooledArtifact } from './spooled-artifact.js'
import { readerSchema } from './text-readers.js'

/** The readers only JSON artifacts have. */
export const JSON_READER_NAMES = Object.freeze(['artifact_json_query'] as const)

/** A JSON query result: the normalized path, what is there, and its JSON text within the byte cap. */
export interface JsonQueryResult {
  readonly path: string
  readonly type: string
  readonly json: string
  readonly truncated: boolean
}

const invalid = (message: string) => new SkillHostError('E_ARTIFACT_READ_INVALID', message)

/** True for `application/json` and `application/*+json`. */
function isJsonMime(mimeType: string): boolean {
  const base = baseMimeType(mimeType)
  return base === 'application/json' || (base.startsWith('application/') && base.endsWith('+json'))
}

/**
 * A JSON artifact (kind 'json', `application/json`). Adds a safe path query:
 * `a.b[0].c`, never evaluated as code. Its reader accepts kind 'json' and
 * anything spooled with a JSON MIME type.
 */
export class JsonArtifact extends SpooledArtifact {
  static override readonly kind: string = 'json'
  static override readonly mimeType: string = 'application/json'

  static override accepts(record: Retrievable): boolean {
    // biome-ignore lint/complexity/noThisInStatic: a subclass accepts its own kind too
    return record.kind === this.kind || isJsonMime(record.mimeType)
  }

  static override readers(): readonly Tool[] {
    return jsonReaders()
  }

  /**
   * The value at `path` (default: the whole document), pretty-printed within
   * the byte cap. Throws `E_ARTIFACT_READ_INVALID` for a bad path, a path
   * that does not resolve, content that is not JSON, or a document too large
   * to parse.
   */
  async query(path = '', maxBytes: number = L.maxBytes): Promise<JsonQueryResult | BinaryContent> {
    const segments = parseJsonPath(path.trim())
    if (this.size > L.maxJsonBytes) {
      throw invalid(
        `Artifact '${this.id}' is ${this.size} bytes, over the ${L.maxJsonBytes}-byte JSON query cap; use artifact_grep or artifact_cat.`,
      )
    }
    const content = await this.content()
    if (content.binary) return content
    let root: unknown
    try {
      root = JSON.parse(content.text)
    } catch {
      throw invalid(
        `Artifact '${this.id}' is not valid JSON; read it with artifact_cat or artifact_grep.`,
      )
    }
    const value = resolveJsonPath(root, segments)
    let json: string
    try {
      json = JSON.stringify(value, null, 2) ?? 'null'
    } catch {
      throw invalid('The value is too deeply nested to print; query a deeper path.')
    }
    const cap = Math.min(maxBytes, L.maxBytes)
    const truncated = utf8Length(json) > cap
    return {
      path: formatJsonPath(segments),
      type: describeJsonType(value),
      json: truncated ? cutUtf8(json, cap) : json,
      truncated,
    }
  }
}

let cached: readonly Tool[] | undefined

/** `artifact_json_query`, built once and shared. */
export function jsonReaders(): readonly Tool[] {
  cached ??= Object.freeze([
    new Tool<{ id: string; path?: string }>({
      name: 'artifact_json_query',
      description: `The value at a path in a JSON artifact: a.b[0].c, ["odd key"], [-1] for the last item; empty for the whole document. No filters or expressions. Output is pretty JSON, at most ${L.maxBytes} bytes; a cut says so.`,
      inputSchema: readerSchema({
        path: { type: 'string', description: 'e.g. items[0].name; empty for the root.' },
      }),
      handler: async (args, ctx) => {
        const artifact = await JsonArtifact.open(ctx.spool, args.id, 'artifact_json_query')
        const read = await artifact.query(args.path ?? '')
        if (isBinaryContent(read)) return formatBinary(artifact.retrievable, read)
        const header = `[artifact ${artifact.id} at ${read.path}: ${read.type}]`
        const note = read.truncated
          ? [
              `[truncated at the ${L.maxBytes}-byte cap; query a deeper path, e.g. ${read.path}[0] or ${read.path}.key]`,
            ]
          : []
        return [header, read.json, ...note].join('\n')
      },
    }),
  ])
  return cached
}
