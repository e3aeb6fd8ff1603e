import { resolve } from 'node:path'
import { personText, SkillHostError } from '../../common/index.js'
import { type IgnoredKey, SKILL_SIDECAR_FILE } from '../../manifest/index.js'
import {
  type DiscoveredSkill,
  FileSystemSkillSource,
  type SkillProblem,
  type SkillSource,
} from '../../sources/index.js'
import {
  DEFAULT_INTERPRETER_NAMES,
  type SkillScript,
  validateSkillScript,
} from '../../tiers/scripts/interpreter-checks.js'
import { type CollectOptions, collectSkills, skillFolderOf } from '../shared/collect-skills.js'
import { mapLimit } from '../shared/map-limit.js'
import { isNotSearched } from '../shared/not-searched.js'

/** One line of the validate report: a skill folder and its verdict. */
export interface ValidateEntry {
  readonly path: string
  readonly name?: string
  readonly valid: boolean
  readonly errors: string[]
  readonly warnings: string[]
}

/**
 * Each declared script's interpreter, checked by the check `run` makes
 * (`validateSkillScript` against `scriptInterpreters`): a name run refuses
 * is an error, a default name missing on this host a warning. Claude Code
 * keys skillhost does not honour are warnings too.
 */
async function interpreterProblems(
  source: SkillSource,
  skill: DiscoveredSkill,
  allowed: Readonly<Record<string, readonly string[]>>,
  plain: boolean,
): Promise<{ errors: string[]; warnings: string[] }> {
  const errors: string[] = []
  const warnings: string[] = []
  let scripts: readonly SkillScript[] = []
  try {
    const descriptor = (plain && seenPlain(source, skill)) || (await source.descriptor(skill))
    scripts = (descriptor.scripts ?? []) as readonly SkillScript[]
    // Claude Code keys skillhost reads but does not act on: named, never silent.
    for (const { key, reason } of descriptor.ignored ?? [])
      warnings.push(`'${key}' is a Claude Code key skillhost does not honour: ${reason}.`)
  } catch (err) {
    errors.push(SkillHostError.isInstance(err) ? `${err.code}: ${personText(err)}` : String(err))
  }
  for (const script of scripts) {
    try {
      validateSkillScript(skill.id, script, allowed)
    } catch (err) {
      if (!SkillHostError.isInstance(err)) throw err
      if (DEFAULT_INTERPRETER_NAMES.includes(script.interpreter)) {
        warnings.push(
          `script '${script.name}' uses interpreter '${script.interpreter}', which is not installed here; skillhost run would refuse it on this host.`,
        )
      } else {
        errors.push(
          `${err.message} skillhost run and serve refuse it; use an allowed name, or pass --interpreter ${script.interpreter}=PATH to run and serve.`,
        )
      }
    }
  }
  return { errors, warnings }
}

/**
 * What discovery saw of a skill with no sidecar, when that is all its
 * descriptor would say: no scripts, no tools to read or import, only the
 * manifest's ignored keys. Its folder is then not scanned a second time
 * (the walk read it a moment ago). Undefined when the skill has a sidecar:
 * its descriptor reads and checks the tools it declares.
 */
function seenPlain(
  source: SkillSource,
  skill: DiscoveredSkill,
): { readonly scripts?: undefined; readonly ignored: readonly IgnoredKey[] } | undefined {
  const seen = source instanceof FileSystemSkillSource ? source.declared(skill) : undefined
  if (seen === undefined || seen.files.includes(SKILL_SIDECAR_FILE)) return undefined
  return { ignored: seen.ignored }
}

/** Skills whose descriptor is read at once: enough to keep the thread pool busy, few enough to bound memory. */
const DESCRIPTORS_IN_FLIGHT = 16

/**
 * Validates the skills under one root (a path given to `skillhost validate`):
 * one entry per skill folder (and per folder a problem names), in walk order;
 * each skill id found goes into `ids`, each folder not searched into
 * `notSearched`. Depends on nothing but its arguments.
 */
export async function validateRoot(
  rawRoot: string,
  options: CollectOptions,
  ids: Set<string>,
  allowedNow: () => Promise<Readonly<Record<string, readonly string[]>>>,
  notSearched: SkillProblem[],
): Promise<ValidateEntry[]> {
  const [scan] = await collectSkills([rawRoot], options)
  const allowed = await allowedNow()
  for (const skill of scan?.skills ?? []) ids.add(skill.id)
  const root = resolve(rawRoot)
  const byPath = new Map<string, ValidateEntry>()
  const entry = (path: string): ValidateEntry => {
    let e = byPath.get(path)
    if (!e) {
      e = { path, valid: true, errors: [], warnings: [] }
      byPath.set(path, e)
    }
    return e
  }
  // Each skill's descriptor proves it current (a fresh scan of its folder, on the thread
  // pool): several in flight, so the main thread does not wait on each in turn. The
  // results are applied in walk order, so the report is the same as one at a time.
  const skills = scan?.skills ?? []
  // Without a lock or overlays, a skill with no sidecar is judged by what the walk saw;
  // a lock's pins and an overlay's sidecar are checked by the descriptor's fresh scan.
  const plain = options.lock === undefined && (options.overlays ?? []).length === 0
  const problems = scan
    ? await mapLimit(skills, DESCRIPTORS_IN_FLIGHT, (skill) =>
        interpreterProblems(scan.source, skill, allowed, plain),
      )
    : []
  for (const [i, skill] of skills.entries()) {
    const e = entry(skillFolderOf(skill))
    Object.assign(e, { name: skill.name })
    const found = problems[i]
    if (!found) continue
    e.errors.push(...found.errors)
    // A missing interpreter is this host's state, not a spec violation: a warning in both modes.
    e.warnings.push(...found.warnings)
  }
  for (const p of scan?.problems ?? []) {
    // Reported once for every path, as a count and the first few (see `notSearchedLines`).
    if (isNotSearched(p)) {
      notSearched.push(p)
      continue
    }
    // A changed pinned skill's descriptor fails with the same text, as an error.
    if (p.code === 'E_SKILL_NOT_PINNED' && p.severity === 'warning') continue
    const e = entry(p.hostPath ?? p.location)
    // An invalid skill is shown by the name its manifest gave, when it gave one.
    if (e.name === undefined && p.id !== undefined) Object.assign(e, { name: p.id })
    if (p.severity === 'error') {
      e.errors.push(p.message)
      Object.assign(e, { valid: false })
    } else e.warnings.push(p.message)
  }
  if (scan?.error) entry(root).errors.push(scan.error)
  if (byPath.size === 0)
    byPath.set(root, { path: root, valid: false, errors: ['no SKILL.md found here'], warnings: [] })
  return [...byPath.values()].map((e) => (e.errors.length > 0 ? { ...e, valid: false } : e))
}
