import { utf8Length } from '../common/artifacts/index.js'
import { SkillHostError } from '../common/errors.js'
import type { BodySegment } from '../skill-model/dynamic-context.js'

/**
 * The longest `arguments` string a load accepts, in UTF-16 code units. Claude
 * Code passes a slash command's tail; a few KB covers any such line without
 * letting one load balloon the body it is substituted into.
 */
export const MAX_SKILL_ARGUMENTS_LENGTH = 4_096

/** The sandbox path of a skill's folder when no script tier says otherwise. */
export const DEFAULT_SKILL_DIR = '/skill'

/**
 * Refuses `value` unless it is a string of at most
 * `MAX_SKILL_ARGUMENTS_LENGTH` characters (`E_TOOL_INVALID_ARGS`). The
 * message names the bound only, never the value.
 */
export function checkSkillArguments(value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.length > MAX_SKILL_ARGUMENTS_LENGTH) {
    throw new SkillHostError(
      'E_TOOL_INVALID_ARGS',
      `arguments must be a string of at most ${MAX_SKILL_ARGUMENTS_LENGTH} characters.`,
      { data: { param: 'arguments' } },
    )
  }
}

/**
 * Splits `raw` the way a POSIX shell splits words, without any expansion:
 * whitespace separates; `'…'` keeps everything literally; `"…"` keeps
 * everything but `\"` and `\\`, which drop their backslash; outside quotes a
 * backslash keeps the next character literally. Quotes are stripped, `''`
 * yields an empty argument, and an unclosed quote runs to the end. Never throws.
 */
export function splitSkillArguments(raw: string): string[] {
  const out: string[] = []
  let word = ''
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string
    if (quote === "'") {
      if (c === "'") quote = undefined
      else word += c
    } else if (quote === '"') {
      if (c === '"') quote = undefined
      else if (c === '\\' && (raw[i + 1] === '"' || raw[i + 1] === '\\')) word += raw[++i]
      else word += c
    } else if (/\s/.test(c)) {
      if (inWord) out.push(word)
      word = ''
      inWord = false
    } else {
      inWord = true
      if (c === "'" || c === '"') quote = c
      else if (c === '\\' && i + 1 < raw.length) word += raw[++i]
      else word += c
    }
  }
  if (inWord) out.push(word)
  return out
}

/** What a skill body's placeholders are replaced with. */
export interface SkillBodyValues {
  /** The load's `arguments`; undefined leaves every argument placeholder as written. */
  readonly arguments?: string
  /** The skill's folder as its scripts see it (the sandbox's skill mount). */
  readonly skillDir: string
  /** For a skill in a Claude Code plugin, the plugin root as its scripts see it; else `skillDir` stands for it. */
  readonly pluginRoot?: string
}

const PLACEHOLDER =
  /\$\{(?:CLAUDE_SKILL_DIR|CLAUDE_PLUGIN_ROOT|SKILLHOST_SKILL_DIR)\}|\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)/g

/**
 * The body a loaded skill shows, with Claude Code's placeholders filled in one
 * pass (a value is never scanned again, so an argument holding `$1` stays as
 * given): `${CLAUDE_SKILL_DIR}`, `${CLAUDE_PLUGIN_ROOT}` and
 * `${SKILLHOST_SKILL_DIR}` become `skillDir`; with `arguments`, `$ARGUMENTS`
 * becomes the raw string and `$ARGUMENTS[N]` / `$N` the N-th (0-based) word of
 * `splitSkillArguments`, a missing one staying as written. When the body
 * names no `$ARGUMENTS` and `arguments` is not empty, `\n\nARGUMENTS: <raw>`
 * is appended, so the model still sees what it was given.
 */
export function substituteSkillBody(body: string, values: SkillBodyValues): string {
  return renderSkillBody([{ kind: 'text', text: body }], values, [])
}

/**
 * The floor of a rendered body's bound, in UTF-8 bytes: twice the SKILL.md
 * cap a source keeps by default (1 MiB), so any body within that cap renders
 * with its arguments and dynamic-context outputs. A body written larger (a
 * deployer raised the cap) may render to twice its own size.
 */
export const MIN_RENDERED_BODY_LIMIT = 2 * 1024 * 1024

/** What one placeholder becomes, with its UTF-8 size counted once per distinct value. */
interface Fill {
  readonly text: string
  readonly bytes: number
}

const fill = (text: string): Fill => ({ text, bytes: utf8Length(text) })

/** The suffix a body that names no `$ARGUMENTS` gets, before the raw string. */
const ARGUMENTS_SUFFIX = '\n\nARGUMENTS: '

/**
 * How one body's placeholders are filled (see `substituteSkillBody`): the
 * one rule both the size count and the rendering follow, each value sized
 * once however often it is named.
 */
function placeholderFiller(
  values: SkillBodyValues,
): (match: string, indexed?: string, positional?: string) => Fill | undefined {
  const raw = values.arguments
  const skillDir = fill(values.skillDir)
  const pluginRoot = values.pluginRoot === undefined ? skillDir : fill(values.pluginRoot)
  const dir = (match: string) => (match === '${CLAUDE_PLUGIN_ROOT}' ? pluginRoot : skillDir)
  if (raw === undefined) return (match) => (match.startsWith('${') ? dir(match) : undefined)
  const whole = fill(raw)
  const words = splitSkillArguments(raw).map(fill)
  return (match, indexed, positional) => {
    if (match.startsWith('${')) return dir(match)
    const n = indexed ?? positional
    if (n === undefined) return whole
    return words[Number(n)]
  }
}

/** True when the rendered body gets `ARGUMENTS_SUFFIX` and the raw string. */
function appendsArguments(segments: readonly BodySegment[], raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return false
  return !segments.some((s) => (s.kind === 'command' ? s.command : s.text).includes('$ARGUMENTS'))
}

/**
 * The UTF-8 size `renderSkillBody` would produce, counted without building
 * it, and the bound it must keep (`MIN_RENDERED_BODY_LIMIT`, or twice the
 * written body when that is larger).
 */
function renderedSize(
  segments: readonly BodySegment[],
  values: SkillBodyValues,
  replacements: readonly string[],
  filler: ReturnType<typeof placeholderFiller>,
): { size: number; limit: number } {
  let size = 0
  let written = 0
  let index = 0
  for (const segment of segments) {
    if (segment.kind === 'command') {
      written += utf8Length(segment.source)
      size += utf8Length(replacements[index++] ?? segment.source)
      continue
    }
    const bytes = utf8Length(segment.text)
    written += bytes
    size += bytes
    // Placeholders are ASCII: each match's length is its size in bytes.
    for (const m of segment.text.matchAll(PLACEHOLDER)) {
      const value = filler(m[0], m[1], m[2])
      if (value) size += value.bytes - m[0].length
    }
  }
  if (appendsArguments(segments, values.arguments))
    size += ARGUMENTS_SUFFIX.length + utf8Length(values.arguments!)
  return { size, limit: Math.max(MIN_RENDERED_BODY_LIMIT, 2 * written) }
}

/**
 * `substituteSkillBody` over a body split by `splitDynamicContext`: text
 * segments are filled, the i-th command segment becomes `replacements[i]`
 * (its output, or a note), taken as it is: neither a command's text nor its
 * output is scanned for placeholders (a command gets the arguments as shell
 * parameters instead, see `dynamicContextEnv`). The result's size is counted
 * first: past its bound (`MIN_RENDERED_BODY_LIMIT`, or twice the written
 * body) nothing is built and the load fails with `E_SKILL_SOURCE_TOO_LARGE`
 * naming the bound, so placeholders named many times cannot multiply one
 * argument into a body of any size.
 */
export function renderSkillBody(
  segments: readonly BodySegment[],
  values: SkillBodyValues,
  replacements: readonly string[],
): string {
  const filler = placeholderFiller(values)
  const { size, limit } = renderedSize(segments, values, replacements, filler)
  if (size > limit) {
    throw new SkillHostError(
      'E_SKILL_SOURCE_TOO_LARGE',
      `The skill's body would be ${size} bytes with these arguments in its placeholders; the limit is ${limit} bytes (twice the written body, at least ${MIN_RENDERED_BODY_LIMIT}). Load it with shorter arguments or none.`,
      { data: { size, limit } },
    )
  }
  let index = 0
  let out = ''
  for (const segment of segments) {
    if (segment.kind === 'command') {
      out += replacements[index++] ?? segment.source
      continue
    }
    out += segment.text.replace(
      PLACEHOLDER,
      (match, indexed?: string, positional?: string) =>
        filler(match, indexed, positional)?.text ?? match,
    )
  }
  if (!appendsArguments(segments, values.arguments)) return out
  return `${out}${ARGUMENTS_SUFFIX}${values.arguments}`
}

/**
 * What a body's dynamic-context commands see of the load, as Claude Code's
 * placeholders mean it but without splicing a value into a command line: the
 * load's words become the shell's `$0`, `$1`… (0-based, as `$N` is in a
 * body), the raw string `$ARGUMENTS`, and the skill folder each of its names
 * (`${CLAUDE_SKILL_DIR}`…). The shell expands them inside the sandbox, so an
 * argument is always one value, never shell syntax.
 */
export function dynamicContextEnv(values: SkillBodyValues): {
  params: string[]
  env: Record<string, string>
} {
  const raw = values.arguments ?? ''
  return {
    params: splitSkillArguments(raw),
    env: {
      ARGUMENTS: raw,
      CLAUDE_SKILL_DIR: values.skillDir,
      CLAUDE_PLUGIN_ROOT: values.pluginRoot ?? values.skillDir,
      SKILLHOST_SKILL_DIR: values.skillDir,
    },
  }
}

/**
 * A command as its shell runs it: `$ARGUMENTS[N]`, which no shell knows,
 * becomes the positional parameter `${N}` that `dynamicContextEnv` fills.
 */
export function dynamicCommandLine(command: string): string {
  return command.replace(/\$ARGUMENTS\[(\d+)\]/g, (_, n: string) => `\${${n}}`)
}
