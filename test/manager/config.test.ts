import { describe, expect, it } from 'vitest'
import { SpooledArtifact } from '../../src/common/artifacts/index.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillManagerConfig } from '../../src/manager/types.js'
import { rejectsWith } from '../helpers/error-code.js'
import { memorySource } from '../helpers/manager-fixtures.js'
import { BAD_SCRIPT_CONFIGS, validScriptConfig } from '../helpers/script-config-cases.js'

class ReportArtifact extends SpooledArtifact {
  static override readonly kind: string = 'report'
}

const base = (): SkillManagerConfig => ({ sources: [memorySource([])], gate: async () => {} })
const scripts = (over: Record<string, unknown> = {}) => ({ ...validScriptConfig, ...over }) as never

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

  it.each(BAD_SCRIPT_CONFIGS)(
    'rejects every scripts configuration the public validator rejects (%s)',
    async (needle, patch) => {
      const err = await rejectsWith(
        createSkillManager({ ...base(), scripts: scripts(patch) }),
        'E_INVALID_SKILLS_CONFIG',
      )
      expect(err.message).toContain(needle)
    },
  )

  it('takes a permissive policy only with scripts, and still requires hostEnvIsolated', async () => {
    const permissive = {
      filesystem: { allowRead: ['/'], denyRead: [], allowWrite: ['/tmp'], denyWrite: [] },
      network: { allowedDomains: [] },
    }
    await rejectsConfig(
      { ...base(), unsafe: { scriptsPermissivePolicy: permissive } },
      /without a `scripts`/,
    )
    await rejectsConfig(
      {
        ...base(),
        scripts: scripts({ hostEnvIsolated: false }),
        unsafe: { scriptsPermissivePolicy: permissive },
      },
      /scripts\.hostEnvIsolated/,
    )
    // The permissive policy is the ceiling the validator checks against.
    await rejectsConfig(
      {
        ...base(),
        scripts: scripts(),
        unsafe: { scriptsPermissivePolicy: { ...permissive, filesystem: { allowRead: ['x'] } } },
      },
      /scripts\.policy\.filesystem\.allowRead/,
    )
    await using manager = await createSkillManager({
      ...base(),
      scripts: scripts({ sessionWorkspace: { dir: '/tmp/ws' } }),
      unsafe: { scriptsPermissivePolicy: permissive as never },
    })
    expect(manager.unsafe.join('\n')).toMatch(/scriptsPermissivePolicy/)
  })

  it('rejects a bad isolation configuration, naming the field', async () => {
    const guest = { resolveGuest: async () => ({}) as never }
    for (const [needle, isolation] of [
      ['isolation must be an object', 5],
      ['isolation.maxTimeoutSeconds', { ...guest, maxTimeoutSeconds: 0, defaultTimeoutSeconds: 1 }],
      [
        'isolation.defaultTimeoutSeconds',
        { ...guest, maxTimeoutSeconds: 2, defaultTimeoutSeconds: 3 },
      ],
      [
        'memoryBytes',
        { ...guest, maxTimeoutSeconds: 2, defaultTimeoutSeconds: 1, limits: { memoryBytes: 1 } },
      ],
      ['isolation.resolveGuest', { maxTimeoutSeconds: 2, defaultTimeoutSeconds: 1 }],
    ] as const) {
      await rejectsConfig({ ...base(), isolation }, new RegExp(needle.replace('.', '\\.')))
    }
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
