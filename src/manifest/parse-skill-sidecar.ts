import { SkillHostError } from '../common/errors.js'
import { TOOL_NAME_PATTERN } from '../common/tool.js'
import type {
  SkillScriptDeclaration,
  SkillScriptParamDeclaration,
} from '../skill-model/declarations.js'
import {
  normalizePermissionRequest,
  type SkillPermissionRequest,
} from '../skill-model/permission-request.js'
import { scriptDeclarationProblems } from '../skill-model/script-declaration.js'
import { normalizeSkillPath } from '../skill-model/skill-path.js'
import { TIMEOUT_PARAM } from '../skill-model/timeout-param.js'
import { parseSimpleFrontmatter } from './parse-simple-frontmatter.js'
import { DEFAULT_MAX_ALIAS_COUNT } from './parse-skill-md.js'
import { keepExactIntegers, parseYamlDocument, yamlErrorSentence } from './parse-yaml-document.js'

/** File name of the optional sidecar beside SKILL.md. */
export const SKILL_SIDECAR_FILE = 'skillhost.yaml'

/** An isolated tool as declared in the sidecar: `source` is a file path, read at load. */
export interface SidecarIsolatedTool {
  readonly name: string
  readonly description: string
  readonly params?: Readonly<Record<string, unknown>>
  readonly source: string
}

/** A validated `skillhost.yaml`. Paths are normalized and relative to the skill folder. */
export interface SkillSidecar {
  readonly scripts: readonly SkillScriptDeclaration[]
  readonly isolatedTools: readonly SidecarIsolatedTool[]
  /** An ES module whose exported `Tool`s become module tools, imported only when allowed. */
  readonly module?: string
  /**
   * What the skill's scripts ask to read, write or reach (Codex's
   * `permissions` format): a request the session policy and the gate may
   * grant, never a grant. When present it replaces `agents/openai.yaml`'s.
   */
  readonly permissions?: SkillPermissionRequest
}

const TOP_KEYS = new Set(['scripts', 'isolatedTools', 'module', 'permissions'])
const SCRIPT_KEYS = new Set(['name', 'path', 'description', 'interpreter', 'params'])
const PARAM_KEYS = new Set(['name', 'type', 'values', 'required', 'positional', 'description'])
const ISOLATED_KEYS = new Set(['name', 'description', 'params', 'source'])

type Problems = string[]
type Obj = Record<string, unknown>

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function unknownKeys(obj: Obj, allowed: Set<string>, at: string, problems: Problems): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key))
      problems.push(`${at}.${key} is not a known field (allowed: ${[...allowed].join(', ')})`)
  }
}

function text(obj: Obj, key: string, at: string, problems: Problems, required = true): string {
  const v = obj[key]
  if (typeof v === 'string' && v.trim() !== '') return v
  if (v !== undefined || required) problems.push(`${at}.${key} must be a non-empty string`)
  return ''
}

function path(obj: Obj, key: string, at: string, problems: Problems): string {
  const raw = text(obj, key, at, problems)
  if (raw === '') return ''
  try {
    return normalizeSkillPath(raw)
  } catch (err) {
    problems.push(`${at}.${key} ${(err as Error).message.replace(/^Path /, '')}`)
    return ''
  }
}

function name(obj: Obj, at: string, problems: Problems, seen: Set<string>, kind: string): string {
  const value = text(obj, 'name', at, problems)
  if (value === '') return ''
  if (!TOOL_NAME_PATTERN.test(value))
    problems.push(`${at}.name "${value}" may use only letters, digits, "_" and "-" (1-64)`)
  if (seen.has(value)) problems.push(`${at}.name "${value}" duplicates another ${kind} name`)
  seen.add(value)
  return value
}

function list(doc: Obj, key: string, problems: Problems): unknown[] {
  const v = doc[key]
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) {
    problems.push(`${key} must be a list`)
    return []
  }
  return v
}

function script(
  raw: unknown,
  at: string,
  problems: Problems,
  seen: Set<string>,
): SkillScriptDeclaration {
  if (!isObj(raw)) {
    problems.push(`${at} must be a mapping`)
    return { name: '', path: '', description: '', interpreter: '' }
  }
  unknownKeys(raw, SCRIPT_KEYS, at, problems)
  if (Array.isArray(raw.params)) {
    raw.params.forEach((p, i) => {
      if (isObj(p)) unknownKeys(p, PARAM_KEYS, `${at}.params[${i}]`, problems)
    })
  }
  // The field rules are the skill model's, shared with load: what validate accepts, load accepts.
  for (const problem of scriptDeclarationProblems(raw)) {
    problems.push(`${at}${problem.at === '' ? '' : `.${problem.at}`} ${problem.message}`)
  }
  if (typeof raw.name === 'string') {
    if (seen.has(raw.name)) problems.push(`${at}.name "${raw.name}" duplicates another script name`)
    seen.add(raw.name)
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  let path = ''
  try {
    path = normalizeSkillPath(raw.path)
  } catch {
    // reported above
  }
  const params = Array.isArray(raw.params)
    ? (raw.params as Obj[]).map(
        (p): SkillScriptParamDeclaration => ({
          name: str(p?.name),
          type: p?.type as SkillScriptParamDeclaration['type'],
          ...(Array.isArray(p?.values) && { values: (p.values as unknown[]).map(String) }),
          ...(p?.required === true && { required: true }),
          ...(p?.positional === true && { positional: true }),
          ...(typeof p?.description === 'string' &&
            p.description !== '' && { description: p.description }),
        }),
      )
    : []
  return {
    name: str(raw.name),
    path,
    description: str(raw.description),
    interpreter: str(raw.interpreter),
    ...(params.length > 0 && { params }),
  }
}

function isolated(
  raw: unknown,
  at: string,
  problems: Problems,
  seen: Set<string>,
): SidecarIsolatedTool {
  if (!isObj(raw)) {
    problems.push(`${at} must be a mapping`)
    return { name: '', description: '', source: '' }
  }
  unknownKeys(raw, ISOLATED_KEYS, at, problems)
  if (
    raw.params !== undefined &&
    !(isObj(raw.params) && (raw.params.type === undefined || raw.params.type === 'object'))
  ) {
    problems.push(`${at}.params must be a JSON Schema object schema (type: object)`)
  }
  if (
    isObj(raw.params) &&
    isObj(raw.params.properties) &&
    Object.hasOwn(raw.params.properties, TIMEOUT_PARAM)
  ) {
    problems.push(`${at}.params may not declare '${TIMEOUT_PARAM}'; the host adds it`)
  }
  return {
    name: name(raw, at, problems, seen, 'isolated tool'),
    description: text(raw, 'description', at, problems),
    ...(isObj(raw.params) && { params: raw.params }),
    source: path(raw, 'source', at, problems),
  }
}

/**
 * Parses and validates a `skillhost.yaml` sidecar. Every problem is collected
 * and thrown together as one `E_SKILL_MANIFEST_INVALID` whose message names
 * each offending field (e.g. `scripts[0].params[1].type`); `data.problems`
 * lists them. Unknown fields are errors: the sidecar is skillhost's own format.
 * `label` names the file in messages (a deployer's overlay says so); the
 * rules are the same wherever the sidecar lives.
 */
export function parseSkillSidecar(yamlText: string, label = SKILL_SIDECAR_FILE): SkillSidecar {
  const fail = (problems: Problems, cause?: unknown): SkillHostError =>
    new SkillHostError('E_SKILL_MANIFEST_INVALID', `${label} is invalid: ${problems.join('; ')}`, {
      data: { problems },
      ...(cause !== undefined && { cause }),
    })
  const value = sidecarValue(yamlText, label, fail)
  if (value === null || value === undefined) return { scripts: [], isolatedTools: [] }
  if (!isObj(value)) throw fail(['the top level must be a mapping'])
  const problems: Problems = []
  unknownKeys(value, TOP_KEYS, SKILL_SIDECAR_FILE, problems)
  const scriptNames = new Set<string>()
  const toolNames = new Set<string>()
  const scripts = list(value, 'scripts', problems).map((s, i) =>
    script(s, `scripts[${i}]`, problems, scriptNames),
  )
  const isolatedTools = list(value, 'isolatedTools', problems).map((t, i) =>
    isolated(t, `isolatedTools[${i}]`, problems, toolNames),
  )
  const module =
    value.module === undefined ? undefined : path(value, 'module', SKILL_SIDECAR_FILE, problems)
  // The sidecar is skillhost's own format: a bad request is an error here, not a warning.
  const permissions = normalizePermissionRequest(value.permissions)
  problems.push(...permissions.warnings.map((w) => w.replace(/; it was ignored$/, '')))
  if (problems.length > 0) throw fail(problems)
  return {
    scripts,
    isolatedTools,
    ...(module && { module }),
    ...(permissions.request && { permissions: permissions.request }),
  }
}

/**
 * The sidecar's YAML as plain data. Most sidecars (a list of scripts with
 * their params) are in the frontmatter's fast subset, which gives exactly
 * what `yaml` gives wherever it reads the text (property-tested) without
 * loading `yaml` at all; anything else is parsed by `yaml`. Either way an
 * integer beyond 2^53 keeps its text, and maps are plain objects (a tool's
 * `params` schema is handed on as it is).
 */
function sidecarValue(
  yamlText: string,
  label: string,
  fail: (problems: Problems, cause?: unknown) => SkillHostError,
): unknown {
  const simple = parseSimpleFrontmatter(yamlText)
  // A structured clone's maps are plain objects (own data properties, whatever their keys).
  if (simple !== undefined) return structuredClone(simple)
  const doc = parseYamlDocument(yamlText, label)
  if (doc.errors[0])
    throw fail([`not valid YAML: ${yamlErrorSentence(doc.errors[0])}`], doc.errors[0])
  keepExactIntegers(doc)
  try {
    return doc.toJS({ maxAliasCount: DEFAULT_MAX_ALIAS_COUNT })
  } catch (cause) {
    throw fail(['too many YAML aliases'], cause)
  }
}
