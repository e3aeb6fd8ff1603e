import { afterEach, describe, expect, it } from 'vitest'
import { parseSkillMd } from '../../src/manifest/parse-skill-md.js'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'

// Issue 26.6: YAML problems reach the user as sentences of a message, never
// as the library's own process warnings, and never end in a dangling colon.

const messageOf = (f: () => unknown): string => {
  try {
    f()
  } catch (err) {
    return (err as Error).message
  }
  return ''
}

const warnings: Error[] = []
const onWarning = (w: Error): void => void warnings.push(w)
afterEach(() => {
  process.off('warning', onWarning)
  warnings.length = 0
})

describe('YAML messages', () => {
  it('a collection used as a key emits no process warning (the yaml library would)', async () => {
    process.on('warning', onWarning)
    const key = '? [a, b]\n: c\n'
    messageOf(() => parseSkillMd(`---\nname: x\ndescription: y\n${key}---\n`))
    messageOf(() => parseSkillSidecar(key))
    // process.emitWarning delivers on the next tick.
    await new Promise((r) => setImmediate(r))
    expect(warnings.map((w) => w.name)).toEqual([])
  })

  it.each([
    ['---\nname: a\ndescription: use when: you need it\n---\n', parseSkillMd],
    ['scripts: [\n', parseSkillSidecar],
    ['a: |x\n  b\n', parseSkillSidecar],
  ] as const)('%j: the YAML error is a sentence ending in a full stop', (text, parse) => {
    const message = messageOf(() => parse(text))
    expect(message).toMatch(/not valid YAML/)
    expect(message).toMatch(/at line \d+, column \d+\.$/)
    expect(message).not.toMatch(/:\s*$/)
  })
})
