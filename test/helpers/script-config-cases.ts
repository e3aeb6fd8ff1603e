import type { SkillScriptConfig } from '../../src/tiers/scripts/index.js'
import { createPathTranslator } from '../../src/tiers/scripts/index.js'

/** A tier-3 configuration every validator accepts (the reference shape). */
export const validScriptConfig: SkillScriptConfig = {
  handle: { run: async () => Promise.reject(new Error('unused')) },
  workspace: {
    materialize: async () => '/x',
    dispose: async () => undefined,
    createScratch: async () => '/y',
    disposeScratch: async () => undefined,
  },
  policy: {
    filesystem: { allowRead: ['/srv'], denyRead: [], allowWrite: ['/srv/scratch'], denyWrite: [] },
    network: { allowedDomains: [] },
  },
  translator: createPathTranslator(),
  interpreters: { sh: ['/bin/sh'] },
  interpreterReadPaths: ['/bin', '/usr'],
  maxTimeoutSeconds: 3,
  defaultTimeoutSeconds: 1,
  maxOutputBytes: 1000,
  hostEnvIsolated: true,
}

const fs = validScriptConfig.policy.filesystem
const withFs = (patch: Record<string, unknown>) => ({
  policy: { ...validScriptConfig.policy, filesystem: { ...fs, ...patch } },
})

/**
 * One bad tier-3 configuration per rule of `validateSkillScriptConfig`: the
 * field its message must name, and the patch over `validScriptConfig`. The
 * public validator and `createSkillManager` are both held to this table.
 */
export const BAD_SCRIPT_CONFIGS: readonly (readonly [string, Record<string, unknown>])[] = [
  ['scripts.hostEnvIsolated', { hostEnvIsolated: false }],
  ['scripts.hostEnvIsolated', { hostEnvIsolated: undefined }],
  ['scripts.handle', { handle: undefined }],
  ['scripts.handle', { handle: { run: 'no' } }],
  ['scripts.workspace', { workspace: undefined }],
  [
    'scripts.workspace',
    { workspace: { materialize: async () => '', dispose: async () => undefined } },
  ],
  ['scripts.translator', { translator: { toSandbox: (p: string) => p } }],
  ['scripts.policy', { policy: undefined }],
  ['scripts.policy.filesystem', { policy: { network: { allowedDomains: [] } } }],
  ['scripts.policy.filesystem.allowRead', withFs({ allowRead: ['rel'] })],
  ['scripts.policy.filesystem.denyRead', withFs({ denyRead: undefined })],
  ['scripts.policy.filesystem.allowWrite', withFs({ allowWrite: ['rel'] })],
  ['scripts.policy.filesystem.denyWrite', withFs({ denyWrite: [7] })],
  [
    'scripts.policy.network.allowedDomains',
    { policy: { filesystem: fs, network: { allowedDomains: [1] } } },
  ],
  ['scripts.interpreterReadPaths', { interpreterReadPaths: undefined }],
  ['scripts.interpreterReadPaths', { interpreterReadPaths: ['relative'] }],
  ['scripts.interpreters', { interpreters: undefined }],
  ['scripts.interpreters.sh', { interpreters: { sh: [] } }],
  ['scripts.interpreters.sh', { interpreters: { sh: ['/bin/sh', 'a\0b'] } }],
  ['scripts.interpreters.sh', { interpreters: { sh: ['sh'] }, interpreterReadPaths: ['/'] }],
  ['not inside interpreterReadPaths', { interpreters: { py: ['/opt/py/bin/python'] } }],
  ['scripts.maxTimeoutSeconds', { maxTimeoutSeconds: 0 }],
  ['scripts.maxTimeoutSeconds', { maxTimeoutSeconds: 2.5 }],
  ['scripts.defaultTimeoutSeconds', { defaultTimeoutSeconds: 5 }],
  ['scripts.defaultTimeoutSeconds', { defaultTimeoutSeconds: 0 }],
  ['scripts.maxOutputBytes', { maxOutputBytes: 0 }],
  ['scripts.maxOutputBytes', { maxOutputBytes: '1000' }],
  ['scripts.failOnNonzeroExit', { failOnNonzeroExit: 'no' }],
  ['scripts.limits', { limits: 5 }],
  ['scripts.undeclared', { undeclared: 'maybe' }],
  ['scripts.sessionWorkspace', { sessionWorkspace: 'dir' }],
  ['scripts.sessionWorkspace.dir', { sessionWorkspace: { dir: 'relative' } }],
  ['scripts.sessionWorkspace.dir', { sessionWorkspace: { dir: '/elsewhere' } }],
  ['scripts.sessionWorkspace.maxBytes', { sessionWorkspace: { maxBytes: 0 } }],
  ['scripts.sessionWorkspace.maxEntries', { sessionWorkspace: { maxEntries: 1.5 } }],
]
