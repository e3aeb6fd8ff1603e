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

  it('the isolation and sandbox subpaths are where those built-ins load', () => {
    expect(added('skillhost/isolation')).toContain('NativeModule worker_threads')
    expect(added('skillhost/sandbox')).toContain('NativeModule child_process')
  })
})
