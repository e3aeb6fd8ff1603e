import {
  normalizePermissionRequest,
  type PermissionRequestParse,
} from '../skill-model/permission-request.js'
import { DEFAULT_MAX_ALIAS_COUNT } from './parse-skill-md.js'
import { parseYamlDocument, yamlErrorSentence } from './parse-yaml-document.js'

/** Codex's per-skill metadata file, relative to the skill folder. */
export const OPENAI_YAML_FILE = 'agents/openai.yaml'

/**
 * Reads the `permissions` of an `agents/openai.yaml` (Codex's format) as a
 * request, through the manifests' one YAML parse and its limits (nesting
 * depth, aliases). Everything else in the file (`interface`, `policy`,
 * `dependencies`) is Codex's and left alone. Never throws: unparseable YAML,
 * a top level that is not a mapping or any bad part of `permissions` comes
 * back as a warning, and the skill loads as if that part were absent.
 */
export function parseOpenAiYaml(yamlText: string): PermissionRequestParse {
  const nothing = (warning: string): PermissionRequestParse => ({
    request: undefined,
    warnings: [`${OPENAI_YAML_FILE}: ${warning}; its permissions were ignored`],
  })
  let value: unknown
  try {
    const doc = parseYamlDocument(yamlText, OPENAI_YAML_FILE)
    if (doc.errors[0]) return nothing(`not valid YAML: ${yamlErrorSentence(doc.errors[0])}`)
    value = doc.toJS({ maxAliasCount: DEFAULT_MAX_ALIAS_COUNT })
  } catch (err) {
    // The depth guard's refusal, or too many aliases.
    const why = err instanceof Error ? yamlErrorSentence(err) : 'unreadable'
    return nothing(`not accepted (${why.replace(/\.$/, '')})`)
  }
  if (value === null || value === undefined) return { request: undefined, warnings: [] }
  if (typeof value !== 'object' || Array.isArray(value))
    return nothing('the top level is not a mapping')
  const parsed = normalizePermissionRequest((value as Record<string, unknown>).permissions)
  return {
    request: parsed.request,
    warnings: parsed.warnings.map((w) => `${OPENAI_YAML_FILE}: ${w}`),
  }
}
