import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../../src/common/errors.js'
import {
  type SkillScript,
  type SkillScriptConfig,
  validateSkillScriptConfig,
} from '../../../src/tiers/scripts/index.js'
import { runScriptOnce, runSkillScript } from '../../../src/tiers/scripts/internal.js'
import { codeOf } from '../../helpers/error-code.js'
import { validScriptConfig } from '../../helpers/script-config-cases.js'
import { ranResult } from '../../helpers/script-outcome.js'

// The rules one script call is held to, each with one home and checked once
// on each path (issue 34.1): a refusal comes before anything is run or copied.

/** A configuration whose sandbox and skill copies count what they are asked to do. */
function counting(patch: Record<string, unknown> = {}) {
  const seen = { runs: 0, copies: 0, removed: 0 }
  const config = {
    ...validScriptConfig,
    handle: {
      run: async () => {
        seen.runs += 1
        throw new Error('not reached')
      },
    },
    workspace: {
      ...validScriptConfig.workspace,
      materialize: async () => {
        seen.copies += 1
        return '/nowhere/copy'
      },
      dispose: async () => {
        seen.removed += 1
      },
    },
    ...patch,
  } as unknown as SkillScriptConfig
  return { config, seen }
}

const script: SkillScript = {
  name: 'echo',
  path: 'scripts/echo.sh',
  description: 'Echoes.',
  interpreter: 'sh',
}

const source = {
  list: async () => ['scripts/echo.sh'],
  read: async () => new Blob(['echo hi\n']).stream(),
}
const ref = { id: 'echo', version: 'v1' }

function messageOf(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    if (SkillHostError.isInstance(err)) return err.message
  }
  return 'no refusal'
}

describe('the rules of one script call', () => {
  it('hostEnvIsolated: one rule, said the same by the validator and by the entries that skip it', async () => {
    const { config, seen } = counting({ hostEnvIsolated: false })
    const said = messageOf(() => validateSkillScriptConfig(config))
    expect(said).toMatch(/^scripts\.hostEnvIsolated must be true/)
    const direct = runSkillScript(config, { skill: 'echo', root: '/nowhere', script, args: {} })
    await expect(direct).rejects.toThrow(said)
    expect(await codeOf(direct)).toBe('E_INVALID_SKILLS_CONFIG')
    const once = ranResult(
      runScriptOnce(config, { source, ref, call: { declared: script, args: {} } }),
    )
    expect(await codeOf(once)).toBe('E_INVALID_SKILLS_CONFIG')
    // Refused before a skill copy was made or anything ran.
    expect(seen).toEqual({ runs: 0, copies: 0, removed: 0 })
  })

  it.each([0, 4, 1.5, Number.NaN])(
    'the deadline %s is refused by the one range check, before anything runs',
    async (timeoutSeconds) => {
      const { config, seen } = counting()
      const direct = runSkillScript(config, {
        skill: 'echo',
        root: '/nowhere',
        script,
        args: {},
        timeoutSeconds,
      })
      const err = await direct.catch((e: unknown) => e)
      expect(await codeOf(direct)).toBe('E_SKILL_SCRIPT_INVALID_ARGS')
      expect((err as SkillHostError).data).toEqual({ param: 'timeout_seconds' })
      expect((err as SkillHostError).message).toBe(
        'timeout_seconds must be an integer between 1 and 3.',
      )
      // The same rule for a tool's argument, and for skillhost run's --timeout.
      const asArg = runSkillScript(config, {
        skill: 'echo',
        root: '/nowhere',
        script,
        args: { timeout_seconds: timeoutSeconds },
      })
      expect(await codeOf(asArg)).toBe('E_SKILL_SCRIPT_INVALID_ARGS')
      const once = ranResult(
        runScriptOnce(config, {
          source,
          ref,
          call: { declared: script, args: {} },
          timeoutSeconds,
        }),
      )
      expect(await codeOf(once)).toBe('E_SKILL_SCRIPT_INVALID_ARGS')
      // runScriptOnce made its skill copy first and removed it; nothing ran.
      expect(seen).toEqual({ runs: 0, copies: 1, removed: 1 })
    },
  )

  it('a declaration is validated where it enters, and its copy is removed when it fails', async () => {
    const { config, seen } = counting()
    const ruby = { ...script, interpreter: 'ruby' }
    const once = ranResult(
      runScriptOnce(config, { source, ref, call: { declared: ruby, args: {} } }),
    )
    expect(await codeOf(once)).toBe('E_SKILL_MANIFEST_INVALID')
    const direct = runSkillScript(config, { skill: 'echo', root: '/x', script: ruby, args: {} })
    expect(await codeOf(direct)).toBe('E_SKILL_MANIFEST_INVALID')
    expect(seen).toEqual({ runs: 0, copies: 1, removed: 1 })
  })
})
