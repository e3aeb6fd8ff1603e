import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { parseSimpleFrontmatter } from '../../src/manifest/parse-simple-frontmatter.js'

// A deterministic generator of frontmatter-like text, biased towards the
// characters that change YAML's meaning.
function* samples(count: number): Generator<string> {
  let seed = 42
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed % n
  }
  const atoms = [
    'a',
    'Z',
    '1',
    '0',
    '.',
    '-',
    ' ',
    ':',
    '#',
    "'",
    '"',
    '\\',
    '[',
    '{',
    '&',
    '*',
    '!',
    '|',
    '>',
    '~',
    ',',
    '?',
    '%',
    '@',
    '`',
    'é',
    'true',
    'null',
    '1e3',
    '0x1f',
    '.inf',
    'yes',
    'no',
  ]
  const keys = [
    'name',
    'description',
    'version',
    'metadata',
    'author',
    'true',
    'null',
    '__proto__',
    'a-b',
    'x_1',
  ]
  for (let i = 0; i < count; i++) {
    const lines: string[] = []
    const n = 1 + rand(5)
    for (let l = 0; l < n; l++) {
      const key = keys[rand(keys.length)]
      if (rand(5) === 0) {
        lines.push(`${key}:`)
        for (let c = 0; c < rand(3); c++)
          lines.push(`${' '.repeat(1 + rand(3))}${keys[rand(keys.length)]}: ${value()}`)
      } else lines.push(`${key}:${rand(8) === 0 ? '' : ' '}${value()}`)
      if (rand(10) === 0) lines.push(rand(2) ? '# comment' : '')
    }
    yield `${lines.join('\n')}\n`
  }
  function value(): string {
    let v = ''
    for (let k = 0; k < 1 + rand(6); k++) v += atoms[rand(atoms.length)]
    return rand(6) === 0 ? `"${v}"` : rand(6) === 0 ? `'${v}'` : v
  }
}

describe('parseSimpleFrontmatter', () => {
  it('parses the common shape', () => {
    expect(
      parseSimpleFrontmatter('name: a\ndescription: "Use when: x"\nmetadata:\n  author: me\n'),
    ).toEqual({
      name: 'a',
      description: 'Use when: x',
      metadata: { author: 'me' },
    })
  })

  it('declines anything outside its subset', () => {
    for (const text of [
      'version: 1.0',
      'a: true',
      'a: [x]',
      'a: >\n  x',
      'a: x # c',
      'a: &x y',
      'a: "x\\ty"',
      'a: x\na: y',
      'a:\n',
    ]) {
      expect(parseSimpleFrontmatter(text)).toBeUndefined()
    }
  })

  it('agrees with the yaml package on everything it accepts', () => {
    let accepted = 0
    for (const text of samples(20_000)) {
      const fast = parseSimpleFrontmatter(text)
      if (fast === undefined) continue
      accepted++
      expect({ ...fast }, text).toEqual(JSON.parse(JSON.stringify(parse(text))))
    }
    expect(accepted).toBeGreaterThan(200)
  })
})
