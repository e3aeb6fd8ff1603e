import { describe, expect, it } from 'vitest'
import {
  type SkillScriptConfig,
  validateSkillScriptConfig,
} from '../../../src/tiers/scripts/index.js'
import { codeOf, rejectsWith } from '../../helpers/error-code.js'
import {
  BAD_SCRIPT_CONFIGS,
  validScriptConfig as valid,
} from '../../helpers/script-config-cases.js'

function message(config: unknown): string {
  return rejectsWith(
    () => validateSkillScriptConfig(config as SkillScriptConfig),
    'E_INVALID_SKILLS_CONFIG',
  ).message
}

describe('validateSkillScriptConfig', () => {
  it('accepts the reference shape, with every optional field set', () => {
    expect(codeOf(() => validateSkillScriptConfig(valid))).toBe('resolved')
    const full = {
      ...valid,
      failOnNonzeroExit: false,
      limits: {},
      undeclared: 'allow',
      sessionWorkspace: { dir: '/srv/scratch/ws', maxBytes: 1024 },
    } as const
    expect(codeOf(() => validateSkillScriptConfig(full))).toBe('resolved')
  })

  it('refuses a non-object', () => {
    expect(message(null)).toMatch(/scripts must be an object/)
  })

  it.each(BAD_SCRIPT_CONFIGS)('refuses a bad %s, naming the field', (needle, patch) => {
    expect(message({ ...valid, ...patch })).toContain(needle)
  })
})
