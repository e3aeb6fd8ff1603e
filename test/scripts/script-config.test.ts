import { describe, expect, it } from 'vitest'
import {
  createPathTranslator,
  type SkillScriptConfig,
  validateSkillScriptConfig,
} from '../../src/tiers/scripts/index.js'
import { codeOf, rejectsWith } from '../helpers/error-code.js'

const valid: SkillScriptConfig = {
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

function message(config: unknown): string {
  return rejectsWith(
    () => validateSkillScriptConfig(config as SkillScriptConfig),
    'E_INVALID_SKILLS_CONFIG',
  ).message
}

describe('validateSkillScriptConfig', () => {
  it('accepts the reference shape', () => {
    expect(codeOf(() => validateSkillScriptConfig(valid))).toBe('resolved')
  })

  it.each([
    ['hostEnvIsolated', { hostEnvIsolated: false }],
    ['interpreterReadPaths', { interpreterReadPaths: undefined }],
    ['not inside interpreterReadPaths', { interpreters: { py: ['/opt/py/bin/python'] } }],
    ['absolute program path', { interpreters: { sh: ['sh'] }, interpreterReadPaths: ['/'] }],
    ['defaultTimeoutSeconds', { defaultTimeoutSeconds: 5 }],
    ['maxOutputBytes', { maxOutputBytes: 0 }],
    [
      'allowWrite',
      {
        policy: {
          ...valid.policy,
          filesystem: { ...valid.policy.filesystem, allowWrite: ['rel'] },
        },
      },
    ],
    [
      'createScratch',
      { workspace: { materialize: async () => '', dispose: async () => undefined } },
    ],
  ])('refuses a bad %s, saying what to fix', (needle, patch) => {
    expect(message({ ...valid, ...patch })).toContain(needle)
  })
})
