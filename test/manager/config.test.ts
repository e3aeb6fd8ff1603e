import { describe, expect, it } from 'vitest'
import { SpooledArtifact } from '../../src/common/artifacts/index.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillManagerConfig } from '../../src/manager/types.js'
import { rejectsWith } from '../helpers/error-code.js'
import { memorySource } from './fixtures.js'

class ReportArtifact extends SpooledArtifact {
  static override readonly kind: string = 'report'
}

const base = (): SkillManagerConfig => ({ sources: [memorySource([])], gate: async () => {} })
const fakeHandle = { run: async () => ({}) } as never
const scripts = (over: Record<string, unknown> = {}) =>
  ({
    handle: fakeHandle,
    workspace: { materialize: async () => '/x', dispose: async () => {} },
    policy: {
      filesystem: { allowRead: [], denyRead: [], allowWrite: [], denyWrite: [] },
      network: { allowedDomains: [] },
    },
    translator: { toSandbox: (p: string) => p, redact: (t: string) => t },
    interpreters: { sh: ['/bin/sh'] },
    interpreterReadPaths: [],
    maxTimeoutSeconds: 3,
    defaultTimeoutSeconds: 1,
    maxOutputBytes: 1000,
    hostEnvIsolated: true,
    ...over,
  }) as never

async function rejectsConfig(config: unknown, pattern: RegExp): Promise<void> {
  const err = await rejectsWith(
    createSkillManager(config as SkillManagerConfig),
    'E_INVALID_SKILLS_CONFIG',
  )
  expect(err.message).toMatch(pattern)
}

describe('manager configuration is validated at construction', () => {
  it('requires sources and a gate', async () => {
    await rejectsConfig({ gate: async () => {} }, /sources/)
    await rejectsConfig({ sources: [], gate: async () => {} }, /sources/)
    await rejectsConfig({ sources: [memorySource([])] }, /gate/)
    await rejectsConfig({ sources: [{ id: 'x' }], gate: async () => {} }, /not a SkillSource/)
  })

  it('rejects duplicate source ids', async () => {
    await rejectsConfig(
      { sources: [memorySource([], 'a'), memorySource([], 'a')], gate: async () => {} },
      /'a'/,
    )
  })

  it('rejects isolation without resolveGuest unless the unsafe in-process opt-in is set', async () => {
    const isolation = { maxTimeoutSeconds: 5, defaultTimeoutSeconds: 1 }
    await rejectsConfig({ ...base(), isolation }, /resolveGuest/)
    await using manager = await createSkillManager({
      ...base(),
      isolation,
      unsafe: { isolatedToolsInProcess: true },
    })
    expect(manager.unsafe.join('\n')).toMatch(/isolatedToolsInProcess/)
    const ctx = manager.createTurnContext()
    const listed = JSON.parse(String(await forgeSkillTools(manager)[0]!.execute({}, ctx)))
    expect(listed.unsafe.join('\n')).toMatch(/isolatedToolsInProcess/)
  })

  it('rejects scripts without hostEnvIsolated unless a permissive policy is given explicitly', async () => {
    await rejectsConfig(
      { ...base(), scripts: scripts({ hostEnvIsolated: false }) },
      /hostEnvIsolated/,
    )
    await rejectsConfig(
      { ...base(), scripts: scripts({ interpreterReadPaths: undefined }) },
      /interpreterReadPaths/,
    )
    await rejectsConfig(
      { ...base(), scripts: scripts({ maxTimeoutSeconds: 0 }) },
      /maxTimeoutSeconds/,
    )
    await rejectsConfig(
      { ...base(), scripts: scripts({ defaultTimeoutSeconds: 9 }) },
      /defaultTimeoutSeconds/,
    )
    const permissive = {
      filesystem: { allowRead: ['/'], denyRead: [], allowWrite: [], denyWrite: [] },
      network: { allowedDomains: [] },
    }
    await rejectsConfig(
      { ...base(), unsafe: { scriptsPermissivePolicy: permissive } },
      /without a `scripts`/,
    )
    await using manager = await createSkillManager({
      ...base(),
      scripts: scripts({ hostEnvIsolated: false }),
      unsafe: { scriptsPermissivePolicy: permissive as never },
    })
    expect(manager.unsafe.join('\n')).toMatch(/scriptsPermissivePolicy/)
  })

  it('rejects artifact kinds that are not artifact classes and bindings to unknown kinds', async () => {
    await rejectsConfig(
      { ...base(), artifactKinds: { report: () => class NotAnArtifact {} } },
      /report/,
    )
    await rejectsConfig({ ...base(), artifactKinds: { report: 'nope' } }, /report/)
    await rejectsConfig(
      {
        ...base(),
        artifactKinds: { report: () => ReportArtifact },
        artifactBindings: { s: { t: 'missing' } },
      },
      /missing/,
    )
    await using ok = await createSkillManager({
      ...base(),
      artifactKinds: { report: () => ReportArtifact },
      artifactBindings: { s: { t: 'report' } },
    })
    expect(ok.unsafe).toEqual([])
  })

  it('rejects a bad defaultChannel and autoRefresh interval', async () => {
    await rejectsConfig({ ...base(), defaultChannel: 'stream' }, /defaultChannel/)
    await rejectsConfig({ ...base(), autoRefresh: { intervalMs: 1 } }, /autoRefresh/)
  })
})
