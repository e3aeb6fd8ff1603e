import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { codeOf, rejectsWith } from './error-code.js'

const refused = () => new SkillHostError('E_TOOL_DENIED', 'no')

describe('codeOf', () => {
  it('reports the code, resolved, or a foreign throw, for promises and async functions', async () => {
    expect(await codeOf(Promise.reject(refused()))).toBe('E_TOOL_DENIED')
    expect(await codeOf(async () => Promise.reject(refused()))).toBe('E_TOOL_DENIED')
    expect(await codeOf(Promise.resolve(1))).toBe('resolved')
    expect(await codeOf(Promise.reject(new TypeError('bad')))).toBe(
      'not-a-skillhost-error: TypeError: bad',
    )
  })

  it('answers synchronously for a synchronous function', () => {
    expect(
      codeOf(() => {
        throw refused()
      }),
    ).toBe('E_TOOL_DENIED')
    expect(codeOf(() => 1)).toBe('resolved')
    expect(
      codeOf(() => {
        throw 'x'
      }),
    ).toBe('not-a-skillhost-error: x')
  })

  it('counts a synchronous throw from a promise-returning function as a rejection', async () => {
    const fn = (): Promise<void> => {
      throw refused()
    }
    expect(await codeOf(fn)).toBe('E_TOOL_DENIED')
  })
})

describe('rejectsWith', () => {
  it('returns the error of the expected code, sync or async', async () => {
    const err = await rejectsWith(Promise.reject(refused()), 'E_TOOL_DENIED')
    expect(err.message).toBe('no')
    expect(
      rejectsWith(() => {
        throw refused()
      }, 'E_TOOL_DENIED').message,
    ).toBe('no')
  })

  it('fails when the subject completes, or throws another code or a foreign value', async () => {
    await expect(rejectsWith(Promise.resolve(1), 'E_TOOL_DENIED')).rejects.toThrow(/completed/)
    await expect(rejectsWith(Promise.reject(refused()), 'E_INTERNAL')).rejects.toThrow()
    await expect(rejectsWith(Promise.reject(new Error('x')), 'E_TOOL_DENIED')).rejects.toThrow(
      /got Error: x/,
    )
    expect(() => rejectsWith(() => 1, 'E_TOOL_DENIED')).toThrow(/completed/)
    expect(() =>
      rejectsWith(() => {
        throw refused()
      }, 'E_INTERNAL'),
    ).toThrow()
  })
})
