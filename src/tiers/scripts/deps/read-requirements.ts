import {
  invalidRequirement,
  MAX_REQUIREMENTS,
  parseRequirement,
  type Requirement,
} from './requirement.js'

/** What a script declares it needs: its requirements and, from PEP 723, its `requires-python`. */
export interface DeclaredRequirements {
  readonly requirements: readonly Requirement[]
  readonly requiresPython?: string
}

/** The most characters of a script or requirements file read for declarations. */
export const MAX_DECLARATION_SOURCE_CHARS = 256 * 1024

function capped(list: Requirement[], where: string): Requirement[] {
  if (list.length > MAX_REQUIREMENTS)
    throw invalidRequirement(where, `more than ${MAX_REQUIREMENTS} requirements.`)
  return list
}

/** Reads one TOML basic string (`"..."`, no escapes but `\"`) at `src[i]`; returns it and the index after. */
function tomlString(src: string, i: number, where: string): [string, number] {
  const quote = src[i]
  if (quote !== '"' && quote !== "'") throw invalidRequirement(where, 'expected a string.')
  let out = ''
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j] as string
    if (c === quote) return [out, j + 1]
    if (c === '\n') break
    if (c === '\\' && quote === '"') {
      const next = src[j + 1]
      if (next !== '"' && next !== '\\') throw invalidRequirement(where, 'unsupported escape.')
      out += next
      j++
      continue
    }
    out += c
  }
  throw invalidRequirement(where, 'unterminated string.')
}

/** The TOML of a PEP 723 `script` block: the lines between `# /// script` and `# ///`, `# ` stripped. */
function pep723Block(source: string): string | undefined {
  const lines = source.slice(0, MAX_DECLARATION_SOURCE_CHARS).split('\n')
  const start = lines.findIndex((l) => /^# \/\/\/ script\s*$/.test(l))
  if (start < 0) return undefined
  const body: string[] = []
  for (const line of lines.slice(start + 1)) {
    if (/^# \/\/\/\s*$/.test(line)) return body.join('\n')
    if (line === '#') body.push('')
    else if (line.startsWith('# ')) body.push(line.slice(2))
    else break
  }
  throw invalidRequirement('the PEP 723 block', 'not closed by `# ///`.')
}

/**
 * A script's PEP 723 inline metadata: `dependencies = [...]` (strings, on
 * one or more lines, trailing comma allowed) and `requires-python = "..."`;
 * other keys and `[tool.*]` tables are skipped. Undefined without a block.
 * Throws `E_SKILL_REQUIREMENTS_INVALID` naming `dependencies[N]` or the key
 * for anything outside that subset.
 */
export function readPep723(source: string): DeclaredRequirements | undefined {
  const toml = pep723Block(source)
  if (toml === undefined) return undefined
  const requirements: Requirement[] = []
  let requiresPython: string | undefined
  let table = ''
  for (let i = 0; i < toml.length; ) {
    const lineEnd = toml.indexOf('\n', i) < 0 ? toml.length : toml.indexOf('\n', i)
    const line = toml.slice(i, lineEnd).trim()
    if (line === '' || line.startsWith('#')) {
      i = lineEnd + 1
      continue
    }
    if (line.startsWith('[')) {
      table = line
      i = lineEnd + 1
      continue
    }
    const key = /^([A-Za-z0-9_-]+)\s*=\s*/.exec(line)
    if (
      table !== '' ||
      key === null ||
      !['dependencies', 'requires-python'].includes(key[1] ?? '')
    ) {
      i = lineEnd + 1 // a key skillhost does not read, or a table's
      continue
    }
    let j = toml.indexOf('=', i) + 1
    while (toml[j] === ' ') j++
    if (key[1] === 'requires-python') {
      const [value, after] = tomlString(toml, j, 'requires-python')
      requiresPython = parseRequirement(`python${value}`, 'requires-python').text.slice(6)
      i = after
      continue
    }
    if (toml[j] !== '[') throw invalidRequirement('dependencies', 'expected an array.')
    j++
    for (;;) {
      while (j < toml.length && /[\s,]/.test(toml[j] as string)) j++
      if (toml[j] === ']') break
      if (toml[j] === '#') {
        j = toml.indexOf('\n', j)
        if (j < 0) throw invalidRequirement('dependencies', 'unterminated array.')
        continue
      }
      const where = `dependencies[${requirements.length}]`
      if (j >= toml.length) throw invalidRequirement('dependencies', 'unterminated array.')
      const [value, after] = tomlString(toml, j, where)
      requirements.push(parseRequirement(value, where))
      capped(requirements, 'dependencies')
      j = after
    }
    i = j + 1
  }
  return { requirements, ...(requiresPython === undefined ? {} : { requiresPython }) }
}

/**
 * A `requirements.txt`: one requirement a line; blank lines and `#`
 * comments skipped. Options (`-r`, `-e`, `--index-url`…), URLs, paths and
 * `git+` are `E_SKILL_REQUIREMENTS_INVALID` naming `requirements.txt line N`,
 * never the line's text.
 */
export function readRequirementsTxt(text: string): Requirement[] {
  const out: Requirement[] = []
  const lines = text.slice(0, MAX_DECLARATION_SOURCE_CHARS).split(/\r?\n/)
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim()
    if (line === '') continue
    out.push(parseRequirement(line, `requirements.txt line ${i + 1}`))
    capped(out, 'requirements.txt')
  }
  return out
}

const INSTALL = /^\s*(?:\$\s*)?(?:pip3?|python3?\s+-m\s+pip|uv\s+pip)\s+install\s+(.+?)\s*$/
const UV_WITH = /^\s*(?:\$\s*)?uv\s+run\s+((?:--with\s+\S+\s+)+)/

/**
 * The packages SKILL.md's own command lines install, where that is
 * unambiguous: `pip install A B`, `python -m pip install A`, `uv pip install
 * A` (every word a plain requirement, no option) and each `--with X` of `uv
 * run`. A line with anything else is not a declaration and is skipped;
 * nothing here throws.
 */
export function readSkillMdInstalls(body: string): Requirement[] {
  const out = new Map<string, Requirement>()
  for (const line of body.slice(0, MAX_DECLARATION_SOURCE_CHARS).split('\n')) {
    const words: string[] = []
    const install = INSTALL.exec(line)
    if (install) words.push(...(install[1] as string).split(/\s+/))
    const uv = UV_WITH.exec(line)
    if (uv) words.push(...(uv[1] as string).split(/\s+/).filter((w) => w !== '--with' && w !== ''))
    const parsed: Requirement[] = []
    for (const w of words.map((x) => x.replace(/^["']|["']$/g, ''))) {
      try {
        if (!/^[A-Za-z0-9]/.test(w)) throw new Error('not a requirement')
        parsed.push(parseRequirement(w, 'SKILL.md'))
      } catch {
        parsed.length = 0
        break
      }
    }
    for (const r of parsed) if (out.size < MAX_REQUIREMENTS) out.set(r.name, r)
  }
  return [...out.values()]
}
