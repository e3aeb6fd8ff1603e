import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseServeOptions } from '../../src/cli/serve/serve-options.js'
import { SkillHostMetrics } from '../../src/common/skill-host-metrics.js'
import { parseYamlDocument } from '../../src/manifest/parse-yaml-document.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const doc = readFileSync(join(repo, 'docs/operations.md'), 'utf8')
const manifest = readFileSync(join(repo, 'docs/examples/kubernetes.yaml'), 'utf8')

// biome-ignore lint/suspicious/noExplicitAny: a parsed manifest is untyped JSON, walked by field.
type Json = any

/** Every document of the example, each through the project's one YAML parser entry. */
function documents(text: string): Json[] {
  return text
    .split(/^---$/m)
    .map((part, i) => {
      const parsed = parseYamlDocument(part, `kubernetes.yaml document ${i + 1}`, { strict: true })
      expect(parsed.errors.map((e) => e.message)).toEqual([])
      return parsed.toJS()
    })
    .filter((d) => d !== null)
}

describe('docs/examples/kubernetes.yaml (issue 41 item 5)', () => {
  const docs = documents(manifest)
  const byKind = (kind: string): Json => {
    const found = docs.filter((d) => d.kind === kind)
    expect(found, kind).toHaveLength(1)
    return found[0]
  }

  it('holds a Secret, a Deployment and a Service, each with the fields a cluster requires', () => {
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`).sort()).toEqual([
      'apps/v1 Deployment',
      'v1 Secret',
      'v1 Service',
    ])
    for (const d of docs)
      expect(d.metadata?.name, d.kind).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    const secret = byKind('Secret')
    expect(Object.keys(secret.stringData ?? secret.data ?? {}).length).toBeGreaterThan(0)

    const deployment = byKind('Deployment')
    expect(deployment.spec.replicas).toBe(2)
    const labels = deployment.spec.template.metadata.labels
    expect(labels).toMatchObject(deployment.spec.selector.matchLabels)
    const [container] = deployment.spec.template.spec.containers
    expect(container.name).toBeTruthy()
    expect(container.image).toBeTruthy()
    expect(container.livenessProbe.httpGet.path).toBe('/healthz')
    expect(container.readinessProbe.httpGet.path).toBe('/readyz')
    const portNames = container.ports.map((p: Json) => p.name)
    expect(portNames).toContain(container.livenessProbe.httpGet.port)
    expect(portNames).toContain(container.readinessProbe.httpGet.port)

    // The PostgreSQL URL (and the token) come from the Secret, by a key it holds.
    const env = new Map(container.env.map((e: Json) => [e.name, e.valueFrom?.secretKeyRef]))
    for (const name of ['SKILLHOST_POSTGRES_URL', 'SKILLHOST_TOKEN']) {
      const ref = env.get(name) as Json
      expect(ref?.name, name).toBe(secret.metadata.name)
      expect(Object.keys(secret.stringData), name).toContain(ref.key)
    }

    const service = byKind('Service')
    expect(labels).toMatchObject(service.spec.selector)
    for (const port of service.spec.ports) expect(portNames).toContain(port.targetPort)
  })

  it("its container's arguments are a serve command line skillhost accepts: HTTP beyond loopback, token and database from the environment, public probes", () => {
    const [container] = byKind('Deployment').spec.template.spec.containers
    expect(container.args[0]).toBe('serve')
    const options = parseServeOptions(container.args.slice(1), {
      SKILLHOST_TOKEN: 'from-the-secret',
      SKILLHOST_POSTGRES_URL: 'postgresql://u:p@db:5432/skillhost',
    })
    expect(options.http).toMatchObject({
      port: container.ports[0].containerPort,
      host: '0.0.0.0',
      tokenFrom: 'env',
      healthPublic: true,
      postgres: 'postgresql://u:p@db:5432/skillhost',
    })
  })
})

describe('docs/operations.md names every metric, and only those', () => {
  it('matches the registry of a fresh SkillHostMetrics', async () => {
    const registered = (await new SkillHostMetrics().registry.getMetricsAsJSON()).map((m) => m.name)
    const documented = new Set([...doc.matchAll(/`(skillhost_[a-z_]+)`/g)].map((m) => m[1]))
    expect([...documented].sort()).toEqual([...registered].sort())
  })
})
