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
 * `substituteSkillBody` over a body split by `splitDynamicContext`: text
 * segments are filled, the i-th command segment becomes `replacements[i]`
 * (its output, or a note), taken as it is: neither a command's text nor its
 * output is scanned for placeholders (a command gets the arguments as shell
 * parameters instead, see `dynamicContextEnv`).
 */
export function renderSkillBody(
  segments: readonly BodySegment[],
  values: SkillBodyValues,
  replacements: readonly string[],
): string {
  const raw = values.arguments
  const words = raw === undefined ? [] : splitSkillArguments(raw)
  let index = 0
  let out = ''
  let named = false
  for (const segment of segments) {
    if (segment.kind === 'command') {
      named ||= segment.command.includes('$ARGUMENTS')
      out += replacements[index++] ?? segment.source
      continue
    }
    named ||= segment.text.includes('$ARGUMENTS')
    out += segment.text.replace(PLACEHOLDER, (match, indexed?: string, positional?: string) => {
      if (match.startsWith('${')) return values.skillDir
      if (raw === undefined) return match
      const n = indexed ?? positional
      if (n === undefined) return raw
      return words[Number(n)] ?? match
    })
  }
  if (raw === undefined || raw === '' || named) return out
  return `${out}\n\nARGUMENTS: ${raw}`
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
      CLAUDE_PLUGIN_ROOT: values.skillDir,
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
