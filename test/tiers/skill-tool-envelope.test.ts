import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { deny, type ToolGate } from '../../src/common/gate.js'
import { MemorySpoolStore } from '../../src/common/memory-spool-store.js'
import type { SpoolStore } from '../../src/common/spool-store.js'
import { createTurnContext } from '../../src/common/turn-context.js'
import { type CallGuard, forgeSkillTool } from '../../src/tiers/skill-tool-envelope.js'

// The envelope runs without an async frame: a synchronous gate runs the call
// in one go, a promise gate chains the rest once. Every way a call can end
// must count it out of its skill exactly once (else an unload never drains).

const gates: Record<string, ToolGate> = {
  'sync allow': () => {},
  'sync deny': () => {
    throw deny('no')
  },
  'sync unavailable': () => {
    throw new Error('gate broke')
  },
  'async allow': async () => {},
  'async deny': async () => {
    throw deny('no')
  },
  'async unavailable': () => Promise.reject(new Error('gate broke')),
}
const runs = {
  'sync ok': () => 'done',
  'sync throw': () => {
    throw new Error('tier failed')
  },
  'async ok': async () => 'done',
  'async throw': async () => {
    throw new Error('tier failed')
  },
}
const allowed = (gate: string) => gate.endsWith('allow')
const expectedCode: Record<string, string> = {
  'sync deny': 'E_TOOL_DENIED',
  'async deny': 'E_TOOL_DENIED',
  'sync unavailable': 'E_TOOL_GATE_UNAVAILABLE',
  'async unavailable': 'E_TOOL_GATE_UNAVAILABLE',
}

/** A store without `putSync`: the text result is kept through the promise path. */
function asyncOnlySpool(): SpoolStore {
  const inner = new MemorySpoolStore()
  return {
    put: (content, meta, options) => inner.put(content, meta, options),
    get: (id) => inner.get(id),
    stat: (id) => inner.stat(id),
    delete: (id) => inner.delete(id),
  }
}

/** A module-tier tool through the envelope, with a guard that counts calls in and out (or `guard` as given). */
function forge(gate: ToolGate, run: () => string | Promise<string>, guard?: CallGuard) {
  const counted = { inFlight: 0, entered: 0, exited: 0 }
  const tool = forgeSkillTool<Record<string, unknown>>({
    name: 'probe',
    description: 'probe',
    inputSchema: { type: 'object' },
    tier: 'module',
    skill: { id: 'probe-skill', version: '1' },
    gate,
    guard: guard ?? {
      enter: () => {
        counted.inFlight += 1
        counted.entered += 1
      },
      exit: () => {
        counted.inFlight -= 1
        counted.exited += 1
      },
    },
    run,
  })
  return { tool, counted }
}

describe('the skill-tool envelope', () => {
  for (const [gateName, gate] of Object.entries(gates)) {
    for (const [runName, run] of Object.entries(runs)) {
      for (const store of ['putSync', 'put only'] as const) {
        it(`${gateName} gate, ${runName} run, ${store} spool: counted out once, right outcome`, async () => {
          const { tool, counted } = forge(gate, run)
          const spool = store === 'putSync' ? new MemorySpoolStore() : asyncOnlySpool()
          const ctx = createTurnContext({ spool })
          const outcome = await tool.execute({}, ctx).then(
            (value) => ({ value: String(value), code: undefined }),
            (err: unknown) => ({
              value: undefined,
              code: SkillHostError.isInstance(err) ? err.code : 'thrown',
            }),
          )
          expect(counted).toEqual({ inFlight: 0, entered: 1, exited: 1 })
          if (!allowed(gateName)) {
            expect(outcome.code).toBe(expectedCode[gateName])
          } else if (runName.endsWith('throw')) {
            expect(outcome.code).toBe('thrown')
          } else {
            expect(outcome.value).toMatch(/^done\n\n\[result r_[0-9a-f]+ · 4 bytes · kind text\]$/)
          }
        })
      }
    }
  }

  it('counts a call in flight while its async run is pending, and out when it settles', async () => {
    let release!: (v: string) => void
    const { tool, counted } = forge(
      async () => {},
      () => new Promise<string>((r) => (release = r)),
    )
    const ctx = createTurnContext({ spool: new MemorySpoolStore() })
    const pending = tool.execute({}, ctx)
    await expect.poll(() => release !== undefined).toBe(true)
    expect(counted.inFlight).toBe(1)
    release('late')
    expect(String(await pending)).toContain('late')
    expect(counted).toEqual({ inFlight: 0, entered: 1, exited: 1 })
  })

  it('a guard that refuses the call (a retired skill) rejects it and counts nothing out', async () => {
    let exited = 0
    const refusing: CallGuard = {
      enter: () => {
        throw deny('retired')
      },
      exit: () => {
        exited += 1
      },
    }
    const { tool } = forge(
      () => {},
      () => 'never',
      refusing,
    )
    await expect(tool.execute({}, createTurnContext())).rejects.toThrow('retired')
    expect(exited).toBe(0)
  })
})
