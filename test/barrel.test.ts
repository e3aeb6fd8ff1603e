import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Node built-ins a module graph loaded, as Node records them. */
function builtinsLoadedBy(specifier: string): string[] {
  const script = `${specifier ? `await import(${JSON.stringify(specifier)});` : ''}
process.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule '))))`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  })
  return JSON.parse(out) as string[]
}

/** True when importing `specifier` made Node load the `pg` package (CommonJS, so in the require cache). */
function loadsPg(specifier: string): boolean {
  const script = `import { createRequire } from 'node:module'
await import(${JSON.stringify(specifier)})
const cache = createRequire(import.meta.url).cache
process.stdout.write(String(Object.keys(cache).some((k) => k.includes('/node_modules/pg/'))))`
  return (
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    }) === 'true'
  )
}

/**
 * The heavy packages (CommonJS, so in the require cache) Node loaded after
 * importing `specifier` and running `then` (code using the import as `m`).
 */
function packagesLoaded(specifier: string, then = ''): string[] {
  const script = `import { createRequire } from 'node:module'
const m = await import(${JSON.stringify(specifier)})
${then}
const cache = Object.keys(createRequire(import.meta.url).cache)
const heavy = ['prom-client', 'ajv', '@opentelemetry/api']
process.stdout.write(JSON.stringify(heavy.filter((p) => cache.some((k) => k.includes(\`/node_modules/\${p}/\`)))))`
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    }),
  ) as string[]
}

describe('metrics, schemas and tracing load their packages on first use', () => {
  it('the root entry and skillhost/common load none of prom-client, ajv, @opentelemetry/api', () => {
    expect(packagesLoaded('skillhost')).toEqual([])
    expect(packagesLoaded('skillhost/common')).toEqual([])
    expect(packagesLoaded('skillhost/sources')).toEqual([])
  })

  it('each loads when first used: a metrics object, a Tool with a JSON Schema', () => {
    // prom-client's process metrics pull the OpenTelemetry API in with it.
    expect(packagesLoaded('skillhost/common', 'new m.SkillHostMetrics()')).toEqual([
      'prom-client',
      '@opentelemetry/api',
    ])
    const tool = "new m.Tool({ name: 't', inputSchema: { type: 'object' }, handler: () => 1 })"
    expect(packagesLoaded('skillhost', tool)).toEqual(['ajv'])
  })
})

describe('entry points stay clean', () => {
  const baseline = new Set(builtinsLoadedBy(''))
  const added = (specifier: string) => builtinsLoadedBy(specifier).filter((m) => !baseline.has(m))

  it('the root entry loads neither child_process nor worker_threads', () => {
    const loaded = added('skillhost')
    expect(loaded.length).toBeGreaterThan(0)
    expect(loaded).not.toContain('NativeModule child_process')
    expect(loaded).not.toContain('NativeModule worker_threads')
  })

  it('skillhost/common loads neither child_process nor worker_threads', () => {
    const loaded = added('skillhost/common')
    expect(loaded).not.toContain('NativeModule child_process')
    expect(loaded).not.toContain('NativeModule worker_threads')
  })

  it('skillhost/sources and skillhost/manifest load neither child_process nor worker_threads', () => {
    for (const entry of ['skillhost/sources', 'skillhost/manifest']) {
      const loaded = added(entry)
      expect(loaded).not.toContain('NativeModule child_process')
      expect(loaded).not.toContain('NativeModule worker_threads')
    }
  })

  it('the isolation and sandbox subpaths are where those built-ins load', () => {
    expect(added('skillhost/isolation')).toContain('NativeModule worker_threads')
    expect(added('skillhost/sandbox')).toContain('NativeModule child_process')
  })

  it('neither the root entry nor skillhost/common loads pg; importing pg is seen', () => {
    expect(loadsPg('skillhost')).toBe(false)
    expect(loadsPg('skillhost/common')).toBe(false)
    expect(loadsPg('skillhost/conformance')).toBe(false)
    expect(loadsPg('skillhost/sources')).toBe(false)
    // skillhost/postgres uses only pg's types: the caller brings the Pool.
    expect(loadsPg('skillhost/postgres')).toBe(false)
    expect(loadsPg('pg')).toBe(true)
  })
})
