import { describe, expect, it } from 'vitest'
import { redactHostPaths, skillError } from '../../src/common/errors.js'
import {
  ERROR_CODES,
  isSkillHostErrorCode,
  renderError,
  SkillHostError,
} from '../../src/common/index.js'

describe('SkillHostError', () => {
  it('takes its status from the code table and keeps data frozen and cause host-side', () => {
    const cause = new Error('root')
    const err = new SkillHostError('E_TOOL_DENIED', 'no', { data: { tool: 't' }, cause })
    expect(err.status).toBe(ERROR_CODES.E_TOOL_DENIED.status)
    expect(err.status).toBe(403)
    expect(err.cause).toBe(cause)
    expect(err.data).toEqual({ tool: 't' })
    expect(Object.isFrozen(err.data)).toBe(true)
    expect(err.name).toBe('SkillHostError')
    expect(err).toBeInstanceOf(Error)
    expect(skillError('E_INTERNAL', 'x').status).toBe(500)
  })

  it('isInstance recognizes a second copy by its Symbol.for brand, and nothing else', () => {
    const foreign = { code: 'E_TOOL_DENIED', message: 'm', [Symbol.for('skillhost.error')]: true }
    expect(SkillHostError.isInstance(foreign)).toBe(true)
    expect(SkillHostError.is(foreign, 'E_TOOL_DENIED')).toBe(true)
    expect(SkillHostError.is(foreign, 'E_INTERNAL')).toBe(false)
    expect(SkillHostError.isInstance({ code: 'E_TOOL_DENIED' })).toBe(false)
    expect(
      SkillHostError.isInstance(Object.assign(new Error('x'), { code: 'E_TOOL_DENIED' })),
    ).toBe(false)
    expect(SkillHostError.isInstance(null)).toBe(false)
    expect(SkillHostError.isInstance('E_TOOL_DENIED')).toBe(false)
  })

  it('isSkillHostErrorCode checks own codes only', () => {
    expect(isSkillHostErrorCode('E_INTERNAL')).toBe(true)
    expect(isSkillHostErrorCode('toString')).toBe(false)
    expect(isSkillHostErrorCode('__proto__')).toBe(false)
    expect(isSkillHostErrorCode(1)).toBe(false)
  })
})

describe('renderError', () => {
  it('renders code and message for a skillhost error', () => {
    expect(renderError(new SkillHostError('E_SKILL_NOT_FOUND', "No skill 'pdf'."))).toBe(
      "E_SKILL_NOT_FOUND: No skill 'pdf'.",
    )
  })

  it('never leaks a thrown plain Error, string or object', () => {
    for (const thrown of [
      new Error('API_KEY=sk-live-123 at /home/alice/app.js'),
      'sk-live-123',
      { message: 'sk-live-123' },
      undefined,
      42,
    ]) {
      const text = renderError(thrown)
      expect(text).toBe('E_INTERNAL: the host failed to complete the call.')
      expect(text).not.toContain('sk-live')
    }
  })

  it('renders an AbortError as E_ABORTED without its message', () => {
    const abort = Object.assign(new Error('secret reason'), { name: 'AbortError' })
    expect(renderError(abort)).toBe('E_ABORTED: the call was aborted.')
  })

  it('redacts host paths (POSIX, Windows drive, UNC) from a skillhost error message', () => {
    const err = new SkillHostError(
      'E_SKILL_SOURCE_FAILED',
      'cannot read /home/alice/x/SKILL.md or C:\\Users\\x\\skills or \\\\server\\share\\f',
    )
    const text = renderError(err)
    expect(text).not.toContain('alice')
    expect(text).not.toContain('Users')
    expect(text).not.toContain('server')
    expect(text).toContain('<path>')
    expect(text.startsWith('E_SKILL_SOURCE_FAILED: cannot read <path>')).toBe(true)
  })

  it('redactHostPaths leaves ordinary text, URLs and relative paths alone', () => {
    expect(redactHostPaths('see scripts/run.py and a/b')).toBe('see scripts/run.py and a/b')
    expect(redactHostPaths('https://example.com/a/b')).toBe('https://example.com/a/b')
    expect(redactHostPaths('at /home/alice/x')).toBe('at <path>')
    expect(redactHostPaths('C:\\Users\\x')).toBe('<path>')
  })

  it('caps the rendered length', () => {
    const text = renderError(new SkillHostError('E_INTERNAL', 'x'.repeat(10_000)))
    expect(text.length).toBeLessThanOrEqual(2_001)
    expect(text.endsWith('…')).toBe(true)
  })
})
