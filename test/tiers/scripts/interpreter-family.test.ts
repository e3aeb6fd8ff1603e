import { describe, expect, it } from 'vitest'
import { scriptInterpreters, withInterpreterFamilies } from '../../../src/tiers/scripts/index.js'
import { INTERPRETER_FAMILIES } from '../../../src/tiers/scripts/internal.js'

// Any executable file will do as a deployer's program: these two always exist.
const NODE = process.execPath
const SH = '/bin/sh'

describe('interpreter families (issue 23: python and python3 are one choice)', () => {
  it('setting python sets python3, and setting python3 sets python', () => {
    expect(INTERPRETER_FAMILIES).toContainEqual(['python', 'python3'])
    const a = scriptInterpreters({ python: NODE })
    expect(a.python).toEqual([NODE])
    expect(a.python3).toEqual([NODE])
    const b = scriptInterpreters({ python3: NODE })
    expect(b.python).toEqual([NODE])
    expect(b.python3).toEqual([NODE])
  })

  it('naming both keeps each, and other names are untouched', () => {
    const both = scriptInterpreters({ python: NODE, python3: SH })
    expect(both.python).toEqual([NODE])
    expect(both.python3).toEqual([SH])
    const other = scriptInterpreters({ ruby: NODE })
    expect(other.ruby).toEqual([NODE])
    expect(other.python).toEqual(scriptInterpreters().python)
  })

  it('a bad program for one name of the family is refused, not copied', () => {
    expect(() => scriptInterpreters({ python: '/nonexistent/python' })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
    )
  })
})

describe('the library option completes families the same way', () => {
  it('withInterpreterFamilies: python alone gives python3 the same prefix; both given stay apart', () => {
    const one = withInterpreterFamilies({ python: [NODE, '-I'] })
    expect(one.python3).toEqual([NODE, '-I'])
    const both = withInterpreterFamilies({ python: [NODE], python3: [SH] })
    expect(both.python3).toEqual([SH])
    expect(withInterpreterFamilies({ node: [NODE] })).toEqual({ node: [NODE] })
  })
})
