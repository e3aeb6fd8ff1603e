import { type UnavailableTool, unavailableTool } from './unavailable-tool.js'

const MAX_LENGTH = 64

function sanitize(part: string): string {
  // `-` becomes `_` too, so `run_a-b_c` cannot be read two ways.
  const cleaned = part.replace(/[^a-zA-Z0-9_]/g, '_').replace(/_+/g, '_')
  return cleaned.length === 0 ? 'x' : cleaned
}

// FNV-1a, 32 bit: a short deterministic tag without pulling node:crypto into
// code the root entry may import.
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/**
 * The tool name of a skill script: `run_<skill>_<script>`, every character
 * outside `[a-zA-Z0-9_]` replaced by `_` (runs collapsed). Always matches
 * `TOOL_NAME_PATTERN`. A name past 64 characters is cut and suffixed with a
 * hash of the original pair, so it stays deterministic and distinct. Two
 * pairs may still sanitize to one name (`a-b`/`c` and `a`/`b_c`); the
 * manager's collision preflight reports that.
 */
export function scriptToolName(skill: string, script: string): string {
  const name = `run_${sanitize(skill)}_${sanitize(script)}`
  if (name.length <= MAX_LENGTH) return name
  const tag = fnv1a(`${skill}\0${script}`)
  return `${name.slice(0, MAX_LENGTH - tag.length - 1)}_${tag}`
}

/** A declared script's own name as text, whatever the declaration holds. */
function declaredName(script: unknown): string {
  const name = (script as { name?: unknown } | null)?.name
  return typeof name === 'string' ? name : ''
}

/** The tool name a declared script gets (or would get): `scriptToolName`, the one rule. */
export function declaredScriptToolName(skill: string, script: unknown): string {
  return scriptToolName(skill, declaredName(script))
}

/**
 * Every declared script of a host without the script tier, as `scripts-off`,
 * under the name it would have had. Here, below the tiers, so a manager
 * without scripts reports them without loading any file of tier 3.
 */
export function scriptsOffTools(skill: {
  readonly id: string
  readonly scripts?: readonly unknown[]
}): UnavailableTool[] {
  return (skill.scripts ?? []).map((s) =>
    unavailableTool(declaredScriptToolName(skill.id, s), 'scripts-off'),
  )
}
