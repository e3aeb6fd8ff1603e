import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { splitDynamicContext } from '../../src/skill-model/dynamic-context.js'
import { fuzzParams } from '../helpers/fuzz-config.js'

// Bodies made of what the rule looks at: bangs, backticks, tildes, line breaks.
const body = fc.string({
  unit: fc.constantFrom('!', '`', '`', '~', '\n', '\r\n', ' ', '\t', 'a', 'é', '```', '```!'),
  maxLength: 60,
})

describe('splitDynamicContext (fuzz)', () => {
  it('never throws and gives the body back exactly when its segments are joined', () => {
    fc.assert(
      fc.property(body, (b) => {
        const segments = splitDynamicContext(b)
        expect(segments.map((s) => (s.kind === 'text' ? s.text : s.source)).join('')).toBe(b)
        for (const s of segments) {
          if (s.kind !== 'command') continue
          expect(s.command.trim()).not.toBe('')
          // An inline command is one line between single backticks after a bang.
          if (s.form === 'inline') {
            expect(s.source).toBe(`!\`${s.command}\``)
            expect(s.command).not.toMatch(/[`\n]/)
          } else expect(s.source).toMatch(/^ {0,3}(`{3,}|~{3,})\s*!\s*\n/)
        }
      }),
      fuzzParams,
    )
  })

  it('finds nothing in a body quoted inside a longer fence', () => {
    fc.assert(
      fc.property(body, (b) => {
        const fence = '`'.repeat(Math.max(3, ...(b.match(/`+/g) ?? ['']).map((r) => r.length + 1)))
        const quoted = `${fence}md\n${b}\n${fence}\n`
        expect(splitDynamicContext(quoted).filter((s) => s.kind === 'command')).toEqual([])
      }),
      fuzzParams,
    )
  })
})
