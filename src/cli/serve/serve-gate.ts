import { readFile } from 'node:fs/promises'
import { deny, type GateRequest, type ToolGate } from '../../common/index.js'
import { UsageError } from '../shared/parse-args.js'
import type { ServeLog } from './serve-log.js'

type Tier = NonNullable<GateRequest['tier']>
const TIERS: readonly Tier[] = ['host', 'lifecycle', 'module', 'isolated', 'script', 'workspace']

/** One rule of a gate policy file. Every field given must match; the first matching rule decides. */
export interface GatePolicyRule {
  /** Tool name glob (`*`, `?`). */
  readonly tool?: string
  /** Skill id glob; a rule with `skill` never matches a call made for no skill. */
  readonly skill?: string
  readonly tier?: Tier
  readonly effect: 'allow' | 'deny'
  /** Shown to the model on a denial. */
  readonly reason?: string
}

/** A gate policy file: ordered rules and the effect when none matches (default `allow`). */
export interface GatePolicy {
  readonly default?: 'allow' | 'deny'
  readonly rules: readonly GatePolicyRule[]
}

/** Built-in gate modes of `skillhost serve`. */
export type ServeGateMode = 'allow-all' | 'deny-scripts'

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
  return new RegExp(`^${body}$`)
}

/** Checks a parsed JSON value is a `GatePolicy`; throws `UsageError` saying what is wrong. */
export function parseGatePolicy(value: unknown, where = 'gate policy'): GatePolicy {
  const fail = (why: string): never => {
    throw new UsageError(`${where}: ${why}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail('must be a JSON object')
  const v = value as Record<string, unknown>
  for (const key of Object.keys(v))
    if (key !== 'default' && key !== 'rules') fail(`unknown key "${key}"`)
  if (v.default !== undefined && v.default !== 'allow' && v.default !== 'deny')
    fail('"default" must be "allow" or "deny"')
  if (!Array.isArray(v.rules)) fail('"rules" must be an array')
  const rules = (v.rules as unknown[]).map((r, i): GatePolicyRule => {
    if (typeof r !== 'object' || r === null) return fail(`rule ${i} must be an object`)
    const rule = r as Record<string, unknown>
    for (const key of Object.keys(rule)) {
      if (!['tool', 'skill', 'tier', 'effect', 'reason'].includes(key))
        fail(`rule ${i}: unknown key "${key}"`)
    }
    if (rule.effect !== 'allow' && rule.effect !== 'deny')
      fail(`rule ${i}: "effect" must be "allow" or "deny"`)
    for (const key of ['tool', 'skill', 'reason'] as const) {
      if (rule[key] !== undefined && typeof rule[key] !== 'string')
        fail(`rule ${i}: "${key}" must be a string`)
    }
    if (rule.tier !== undefined && !TIERS.includes(rule.tier as Tier))
      fail(`rule ${i}: "tier" must be one of ${TIERS.join(', ')}`)
    return rule as unknown as GatePolicyRule
  })
  return { default: (v.default as 'allow' | 'deny' | undefined) ?? 'allow', rules }
}

/** Reads and checks a gate policy file. */
export async function readGatePolicy(path: string): Promise<GatePolicy> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new UsageError(`cannot read the gate policy file ${path}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new UsageError(`the gate policy file ${path} is not valid JSON`)
  }
  return parseGatePolicy(json, path)
}

/** The built-in modes as policies: `allow-all`, and `deny-scripts` (tier-3 refused). */
export function gatePolicyFor(mode: ServeGateMode): GatePolicy {
  if (mode === 'deny-scripts') {
    return {
      default: 'allow',
      rules: [{ tier: 'script', effect: 'deny', reason: 'scripts are disabled on this server' }],
    }
  }
  return { default: 'allow', rules: [] }
}

/**
 * A gate enforcing `policy` that reports every decision to `log` (one line,
 * for stderr). The first rule whose given fields all match decides; otherwise
 * the policy default does. A denial throws `deny(reason)`, so the model sees
 * an explicit refusal with the policy's reason.
 */
export function createPolicyGate(policy: GatePolicy, log: ServeLog): ToolGate {
  const compiled = policy.rules.map((rule) => ({
    rule,
    tool: rule.tool === undefined ? undefined : globToRegExp(rule.tool),
    skill: rule.skill === undefined ? undefined : globToRegExp(rule.skill),
  }))
  return (_ctx, request) => {
    const hit = compiled.find(
      ({ rule, tool, skill }) =>
        (tool === undefined || tool.test(request.tool)) &&
        (skill === undefined || (request.skill !== undefined && skill.test(request.skill.id))) &&
        (rule.tier === undefined || rule.tier === request.tier),
    )
    const effect = hit?.rule.effect ?? policy.default ?? 'allow'
    const who = `${request.tool} (${request.tier ?? 'host'}${request.skill ? `, skill ${request.skill.id}@${request.skill.version}` : ''})`
    if (effect === 'allow') {
      log(`gate allow ${who}`)
      return
    }
    const reason = hit?.rule.reason ?? 'refused by the server policy'
    log(`gate DENY ${who}: ${reason}`, { level: 'warning' })
    throw deny(reason)
  }
}
