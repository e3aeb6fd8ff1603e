import { describe, expect, it } from 'vitest'
import {
  enforceToolGate,
  runToolGate,
  SCRIPT_GATE_CODES,
  TOOL_GATE_CODES,
} from '../../src/common/gate.js'
import {
  deny,
  GateDenied,
  renderError,
  SkillHostError,
  type ToolGate,
} from '../../src/common/index.js'
import { rejectsWith } from '../helpers/error-code.js'
import { turn } from '../helpers/turn.js'

const request = { tool: 'run_pdf_extract', args: { page: 1 } }

describe('runToolGate', () => {
  it('allows when the gate resolves (sync or async) and passes ctx and request through', async () => {
    const ctx = turn()
    let seen: unknown[] = []
    const gate: ToolGate = (c, r) => {
      seen = [c, r]
    }
    expect(await runToolGate(gate, ctx, request)).toEqual({ outcome: 'allow' })
    expect(seen).toEqual([ctx, request])
    expect(await runToolGate(async () => undefined, ctx, request)).toEqual({ outcome: 'allow' })
  })

  it('classifies GateDenied as refused with the reason', async () => {
    const verdict = await runToolGate(
      () => {
        throw deny('scripts are off here')
      },
      turn(),
      request,
    )
    expect(verdict).toEqual({ outcome: 'refused', reason: 'scripts are off here' })
  })

  it('classifies any other throw, or a rejected promise, as unavailable', async () => {
    const boom = new Error('db down')
    const a = await runToolGate(
      () => {
        throw boom
      },
      turn(),
      request,
    )
    expect(a).toEqual({ outcome: 'unavailable', cause: boom })
    const b = await runToolGate(async () => Promise.reject('string'), turn(), request)
    expect(b.outcome).toBe('unavailable')
  })

  it('classifies a missing gate as unavailable', async () => {
    expect((await runToolGate(undefined, turn(), request)).outcome).toBe('unavailable')
    expect((await runToolGate('yes' as never, turn(), request)).outcome).toBe('unavailable')
  })

  it('recognizes a refusal from a second copy of the package by its brand', async () => {
    const foreign = Object.assign(new Error('no'), {
      reason: 'no',
      [Symbol.for('skillhost.gate-denied')]: true,
    })
    expect(GateDenied.isInstance(foreign)).toBe(true)
    const verdict = await runToolGate(
      () => {
        throw foreign
      },
      turn(),
      request,
    )
    expect(verdict).toEqual({ outcome: 'refused', reason: 'no' })
    expect(GateDenied.isInstance(new Error('no'))).toBe(false)
  })
})

describe('enforceToolGate', () => {
  it('returns on allow', async () => {
    await expect(enforceToolGate(async () => undefined, turn(), request)).resolves.toBeUndefined()
  })

  it('throws E_TOOL_DENIED (403) with the reason by default', async () => {
    const err = await rejectsWith(
      enforceToolGate(
        () => {
          throw deny('not today')
        },
        turn(),
        request,
      ),
      'E_TOOL_DENIED',
    )
    expect(err.status).toBe(403)
    expect(err.message).toContain('not today')
  })

  it('throws E_TOOL_GATE_UNAVAILABLE (503) for a broken gate without leaking the cause', async () => {
    const secret = new Error('password=hunter2 at /home/alice/gate.js')
    const err = await rejectsWith(
      enforceToolGate(
        () => {
          throw secret
        },
        turn(),
        request,
      ),
      'E_TOOL_GATE_UNAVAILABLE',
    )
    expect(err.status).toBe(503)
    expect(err.cause).toBe(secret)
    expect(err.message).not.toContain('hunter2')
    expect(renderError(err)).not.toContain('hunter2')
    expect(renderError(err)).not.toContain('alice')
    expect(err.message.toLowerCase()).toContain('not a refusal')
  })

  it('throws E_TOOL_GATE_UNAVAILABLE when no gate is configured', async () => {
    await rejectsWith(enforceToolGate(undefined, turn(), request), 'E_TOOL_GATE_UNAVAILABLE')
  })

  it('uses the script codes when asked', async () => {
    const refused = await rejectsWith(
      enforceToolGate(
        () => {
          throw deny('no scripts')
        },
        turn(),
        request,
        SCRIPT_GATE_CODES,
      ),
      'E_SKILL_SCRIPT_DENIED',
    )
    expect(refused.status).toBe(403)
    const down = await rejectsWith(
      enforceToolGate(undefined, turn(), request, SCRIPT_GATE_CODES),
      'E_SKILL_SCRIPT_GATE_UNAVAILABLE',
    )
    expect(down.status).toBe(503)
    expect(TOOL_GATE_CODES).toEqual({
      refused: 'E_TOOL_DENIED',
      unavailable: 'E_TOOL_GATE_UNAVAILABLE',
    })
    expect(SkillHostError.is(down, 'E_SKILL_SCRIPT_GATE_UNAVAILABLE')).toBe(true)
  })
})
