import { describe, expect, it } from 'vitest'
import { skillError } from '../../src/common/errors.js'
import {
  ERROR_CODES,
  isSkillHostErrorCode,
  personText,
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

  it('keeps the person text host-only: not in renderError, JSON, spread or keys', () => {
    const host = '/home/Jane Doe/clients/acme secret (é,#)/ws'
    const err = new SkillHostError('E_SKILL_WORKSPACE_FAILED', 'The workspace is unreachable.', {
      person: `The workspace ${host} is unreachable.`,
    })
    expect(personText(err)).toBe(`The workspace ${host} is unreachable.`)
    expect(err.person).toBe(`The workspace ${host} is unreachable.`)
    expect(renderError(err)).toBe('E_SKILL_WORKSPACE_FAILED: The workspace is unreachable.')
    expect(JSON.stringify(err)).not.toContain('Jane')
    expect(JSON.stringify({ ...err })).not.toContain('Jane')
    expect(Object.keys(err)).not.toContain('person')
    expect(structuredClone(err).message).not.toContain('Jane')
  })

  it('personText falls back to the message of any error, and to the string form', () => {
    expect(personText(new SkillHostError('E_INTERNAL', 'plain'))).toBe('plain')
    expect(personText(new Error('boom'))).toBe('boom')
    expect(personText('text')).toBe('text')
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap')
        },
      },
    )
    expect(personText(hostile)).toBe('an error that cannot be described')
  })

  it('renders a message as written: sandbox paths in a traceback are not redacted', () => {
    const text = renderError(
      new SkillHostError(
        'E_SKILL_SCRIPT_FAILED',
        'File "/skill/scripts/run.py", line 3; /work/out',
      ),
    )
    expect(text).toBe('E_SKILL_SCRIPT_FAILED: File "/skill/scripts/run.py", line 3; /work/out')
  })

  it('caps the rendered length', () => {
    const text = renderError(new SkillHostError('E_INTERNAL', 'x'.repeat(10_000)))
    expect(text.length).toBeLessThanOrEqual(2_001)
    expect(text.endsWith('…')).toBe(true)
  })
})
