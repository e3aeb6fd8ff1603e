import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { activeMetrics } from '../../src/common/active-metrics.js'
import { BoundedLabel, LABEL_VALUE_MAX, OVERFLOW_LABEL } from '../../src/common/bounded-label.js'
import { SkillHostError } from '../../src/common/errors.js'
import { outcomeLabel } from '../../src/common/outcome-label.js'
import { SKILL_LABEL_CAP, SkillHostMetrics } from '../../src/common/skill-host-metrics.js'
import { parseSamples, promtoolCheck } from '../helpers/prometheus.js'

/** Every distinct value `label` takes over the samples of `metric`. */
function labelValues(samples: Map<string, number>, metric: string, label: string): Set<string> {
  const values = new Set<string>()
  for (const key of samples.keys()) {
    if (!key.startsWith(`${metric}{`)) continue
    const m = new RegExp(`${label}="([^"]*)"`).exec(key)
    if (m?.[1] !== undefined) values.add(m[1])
  }
  return values
}

describe('BoundedLabel', () => {
  it('passes the first cap ids, then only the ones it has seen; overflow, empty and over-long ids are other', () => {
    const label = new BoundedLabel(2)
    expect(label.value('a')).toBe('a')
    expect(label.value('b')).toBe('b')
    expect(label.value('c')).toBe(OVERFLOW_LABEL)
    expect(label.value('a')).toBe('a')
    expect(label.value('')).toBe(OVERFLOW_LABEL)
    expect(new BoundedLabel(5).value('x'.repeat(LABEL_VALUE_MAX + 1))).toBe(OVERFLOW_LABEL)
    // A skill named "other" cannot take a seat of its own.
    const other = new BoundedLabel(5)
    expect(other.value(OVERFLOW_LABEL)).toBe(OVERFLOW_LABEL)
    expect(other.value('d')).toBe('d')
  })
})

describe('SkillHostMetrics (issue 41 item 2)', () => {
  it('a hostile catalog (10,000 skills, long ids) cannot grow the series past the documented bound', async () => {
    const metrics = new SkillHostMetrics()
    const ids = Array.from({ length: 10_000 }, (_, i) => `${'x'.repeat(60)}-${i}`.slice(-64))
    for (const id of ids) metrics.toolCall({ kind: 'module', skill: id, seconds: 0.001 })
    for (const id of ids)
      metrics.toolCall({ kind: 'script', skill: `${'y'.repeat(200)}${id}`, seconds: 0.001 })
    const text = await metrics.registry.metrics()
    const samples = parseSamples(text)
    const skills = labelValues(samples, 'skillhost_tool_calls_total', 'skill')
    // SKILL_LABEL_CAP ids plus `other`: the documented bound.
    expect(skills.size).toBe(SKILL_LABEL_CAP + 1)
    const series = [...samples.keys()].filter((k) => k.startsWith('skillhost_tool_calls_total{'))
    expect(series.length).toBe(SKILL_LABEL_CAP + 2) // module: cap ids + other; script: other only
    // Every call is counted, the overflow under `other`.
    const total = series.reduce((sum, k) => sum + (samples.get(k) ?? 0), 0)
    expect(total).toBe(20_000)
    expect(
      samples.get('skillhost_tool_calls_total{kind="module",outcome="ok",skill="other"}'),
    ).toBe(10_000 - SKILL_LABEL_CAP)
    expect(promtoolCheck(text).status).toBe(0)
  })

  it('outcome labels are stable codes only: an error that is no SkillHostError is "error"', () => {
    expect(outcomeLabel(undefined)).toBe('ok')
    expect(outcomeLabel(new SkillHostError('E_TOOL_DENIED', 'no'))).toBe('E_TOOL_DENIED')
    expect(outcomeLabel(new Error('/home/alice/secret'))).toBe('error')
    expect(outcomeLabel({ code: 'E_MADE_UP_BY_A_SKILL' })).toBe('error')
  })

  it('two hosts in one process keep their own registries, and each counts only the calls it runs', async () => {
    const a = new SkillHostMetrics()
    const b = new SkillHostMetrics({ maxSkillLabels: 1 })
    a.run(() => activeMetrics()?.sandboxStart(true))
    b.run(() => activeMetrics()?.sandboxStart(false))
    await b.run(async () => {
      await new Promise((r) => setTimeout(r, 1))
      activeMetrics()?.sandboxStart(true)
    })
    expect(activeMetrics()).toBeUndefined()
    const sa = parseSamples(await a.registry.metrics())
    const sb = parseSamples(await b.registry.metrics())
    expect(sa.get('skillhost_sandbox_starts_total')).toBe(1)
    expect(sa.get('skillhost_sandbox_start_failures_total')).toBe(0)
    expect(sb.get('skillhost_sandbox_starts_total')).toBe(2)
    expect(sb.get('skillhost_sandbox_start_failures_total')).toBe(1)
    // Never prom-client's global default registry.
    const { register } = await import('prom-client')
    expect(await register.metrics()).not.toContain('skillhost_')
  })

  it('a registry holds one SkillHostMetrics: a second on the same registry is refused', () => {
    const registry = new Registry()
    new SkillHostMetrics({ registry })
    expect(() => new SkillHostMetrics({ registry })).toThrow(/already been registered/)
  })
})
