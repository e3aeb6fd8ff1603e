import type { GrepOptions } from '../common/artifacts/artifact-grep.js'
import type { CatRange } from '../common/artifacts/artifact-types.js'
import { isBinaryContent } from '../common/artifacts/artifact-types.js'
import {
  formatBinary,
  formatByteWindow,
  formatGrep,
  formatLineWindow,
  type ReadSubject,
} from '../common/artifacts/format-read.js'
import { catContent, grepContent } from '../common/artifacts/read-content.js'
import { ARTIFACT_READ_LIMITS as L } from '../common/artifacts/read-limits.js'
import { SkillHostError } from '../common/errors.js'
import { enforceToolGate, type ToolGate } from '../common/gate.js'
import { Tool } from '../common/tool.js'
import { READ_SKILL_FILE_TOOL, SKILL_ID_PROPERTY } from './lifecycle-tool-names.js'
import { SKILL_ROOT_PATH, type SkillFiles } from './skill-files.js'
import type { SkillRecord } from './skill-record.js'

/** The arguments of `read_skill_file`. */
interface ReadSkillFileArgs {
  readonly skill: string
  readonly path: string
  readonly range?: CatRange
  readonly grep?: GrepOptions
}

const int = (description: string) => ({ type: 'integer', description })

const DESCRIPTION =
  'Read a file a loaded skill ships (the paths its load_skill result lists under files). ' +
  'range reads lines {startLine, endLine} (1-based, inclusive; default the first ' +
  `${L.defaultLines} lines) or bytes {startByte, endByte}; grep {pattern, regex?, ignoreCase?, context?, maxMatches?} ` +
  'returns the matching lines (literal unless regex: true, which is RE2: no backreferences or lookaround). ' +
  'A folder path (e.g. "reference") lists the files under it, one "path<TAB>size in bytes" line each; ' +
  `path "${SKILL_ROOT_PATH}" lists every file. Page a listing with range and search it with grep. ` +
  `Binary files are described (type and size), not shown. At most ${L.maxLines} lines and ${L.maxBytes} bytes per call. ` +
  'Works while the skill is loaded; after unload_skill, load it again to read its files.'

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['skill', 'path'],
  properties: {
    skill: SKILL_ID_PROPERTY,
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: `A file or folder of the skill, relative to it (e.g. "reference/forms.md"); "${SKILL_ROOT_PATH}" for every file.`,
    },
    range: {
      type: 'object',
      additionalProperties: false,
      description: 'Lines startLine..endLine or bytes startByte..endByte, not both.',
      properties: {
        startLine: int('First line, 1-based.'),
        endLine: int('Last line, inclusive.'),
        startByte: int('First byte, 0-based.'),
        endByte: int('Byte after the last one.'),
      },
    },
    grep: {
      type: 'object',
      additionalProperties: false,
      required: ['pattern'],
      properties: {
        pattern: { type: 'string', description: `At most ${L.maxPatternLength} characters.` },
        regex: { type: 'boolean', description: 'Treat pattern as an RE2 regex. Default false.' },
        ignoreCase: { type: 'boolean' },
        context: int(`Lines around each match (0-${L.maxContextLines}).`),
        maxMatches: int(`Most matches (1-${L.maxMatches}, default ${L.defaultMaxMatches}).`),
      },
    },
  },
}

const encoder = new TextEncoder()

function subject(
  record: SkillRecord,
  path: string,
  label: string,
  mimeType: string,
  size: number,
): ReadSubject {
  return {
    label,
    mimeType,
    size,
    readCall: (range) =>
      `${READ_SKILL_FILE_TOOL} ${JSON.stringify({ skill: record.id, path, range })}`,
    binaryHint: 'Only its type and size are shown; a script of the skill can still use it.',
  }
}

/** The text of a read of `bytes` (a file or a listing) by `args`. */
function render(
  of: ReadSubject,
  bytes: Uint8Array,
  mimeType: string,
  args: ReadSkillFileArgs,
): string {
  const record = { mimeType }
  if (args.grep !== undefined) {
    const read = grepContent(bytes, record, args.grep)
    return isBinaryContent(read)
      ? formatBinary(of, read)
      : formatGrep(of, args.grep.pattern, args.grep.regex === true, read)
  }
  const read = catContent(bytes, record, args.range ?? {})
  if (isBinaryContent(read)) return formatBinary(of, read)
  return 'startByte' in read ? formatByteWindow(of, read) : formatLineWindow(of, read, 'forward')
}

/** A folder's files as text, one `path<TAB>size` line each, in path order. */
function listing(files: SkillFiles, folder: string): Uint8Array {
  const { files: rows } = files.page(folder, 0, files.total)
  return encoder.encode(rows.map((f) => `${f.path}\t${f.size}`).join('\n'))
}

/**
 * `read_skill_file { skill, path, range?, grep? }`: reads the files a loaded
 * skill ships through `SkillFiles` (bytes from the skill's source, never a
 * host path), with the artifact readers' windows, grep and caps. A folder
 * path, or `.`, reads a listing of the files under it, so the listing pages
 * and greps like any text. Gated (tier `lifecycle`) before anything else.
 * `loaded(id)` returns the loaded record or throws `E_SKILL_NOT_LOADED`; the
 * read runs inside the record's guard, so a record retired meanwhile refuses.
 */
export function forgeReadSkillFileTool(
  loaded: (id: string) => SkillRecord,
  gate: ToolGate,
): Tool<ReadSkillFileArgs> {
  return new Tool<ReadSkillFileArgs>({
    name: READ_SKILL_FILE_TOOL,
    description: DESCRIPTION,
    inputSchema: SCHEMA,
    handler: async (args, ctx) => {
      await enforceToolGate(gate, ctx, { tool: READ_SKILL_FILE_TOOL, args, tier: 'lifecycle' })
      if (args.range !== undefined && args.grep !== undefined) {
        throw new SkillHostError(
          'E_ARTIFACT_READ_INVALID',
          'Give range or grep, not both: grep searches the whole file and reports line numbers to read with range.',
        )
      }
      const record = loaded(args.skill)
      record.enter(READ_SKILL_FILE_TOOL)
      try {
        const { files } = record
        const folder = files.folder(args.path)
        if (folder !== undefined) {
          const shown = folder === '' ? SKILL_ROOT_PATH : folder
          const { total } = files.page(folder, 0, 0)
          const label = `skill '${record.id}' files in ${JSON.stringify(shown)} (${total}; path<TAB>size per line)`
          const of = subject(record, shown, label, 'text/plain', total)
          return render(of, listing(files, folder), 'text/plain', args)
        }
        const file = await files.read(args.path)
        const label = `skill '${record.id}' file ${JSON.stringify(file.path)}`
        const of = subject(record, file.path, label, file.mimeType, file.size)
        return render(of, file.bytes, file.mimeType, args)
      } finally {
        record.exit()
      }
    },
  })
}
