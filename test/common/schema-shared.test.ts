import { describe, expect, it } from 'vitest'
import { AJV_MAX_SCHEMAS, compileInputSchema } from '../../src/common/schema.js'

// The soak's heap snapshots (bench/RESULTS.md › "Soak: two replicas"): one
// shared ajv kept every schema object it compiled, and every session makes
// its tools (and their schema objects) anew, so a long-running server grew
// by a few schemas per session. Validators are now shared by content.
const schema = () => ({
  $id: 'https://example.test/greet',
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, loud: { type: 'boolean', default: false } },
})

describe('compileInputSchema shares validators by content', () => {
  it('the same schema in fresh objects (a tool made per session) compiles for every session, $id and all', () => {
    // Before: the second compile of a schema with an $id failed ("already exists").
    for (let session = 0; session < 50; session++) {
      const compiled = compileInputSchema('greet', schema())
      expect(compiled.validateSync?.({ name: 'Ada' })).toEqual({ name: 'Ada', loud: false })
      expect(() => compiled.validateSync?.({ name: 1 })).toThrow(/Invalid arguments for 'greet'/)
    }
  })

  it(`past ${AJV_MAX_SCHEMAS} distinct schemas a fresh ajv starts, and validators made before keep working`, () => {
    const first = compileInputSchema('t0', {
      type: 'object',
      properties: { n0: { type: 'integer' } },
    })
    const later = []
    for (let i = 1; i <= AJV_MAX_SCHEMAS + 5; i++)
      later.push(
        compileInputSchema(`t${i}`, {
          type: 'object',
          properties: { [`n${i}`]: { type: 'integer' } },
        }),
      )
    expect(first.validateSync?.({ n0: 3 })).toEqual({ n0: 3 })
    expect(() => first.validateSync?.({ n0: 'x' })).toThrow(/Invalid arguments/)
    const last = later.at(-1)
    expect(() => last?.validateSync?.({ [`n${AJV_MAX_SCHEMAS + 5}`]: 'x' })).toThrow(
      /Invalid arguments/,
    )
    // The same content after the swap compiles again on the fresh ajv, $id included.
    expect(compileInputSchema('greet', schema()).validateSync?.({ name: 'B' })).toEqual({
      name: 'B',
      loud: false,
    })
  })
})
