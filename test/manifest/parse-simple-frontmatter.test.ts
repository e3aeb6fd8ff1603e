import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  parseSimpleFrontmatter,
  parseSimpleFrontmatterByRegex,
} from '../../src/manifest/parse-simple-frontmatter.js'

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
    // Typed scalars, sequences, block scalars and escapes are in the wider
    // subset now (test/manifest/parse-frontmatter-subset.test.ts).
    for (const text of ['a: x # c', 'a: &x y', 'a: x\na: y', 'a: {b: c}\n']) {
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

  it('gives what the regular-expression definition gives, wherever both give a value', () => {
    const extra = [
      'name: a\ndescription: b\n',
      'name: a  \n  \n# c\n  # c\nx: "q"\ny: \'s\'\nm:\n  k.1: v\n  k-2: w  \n',
      'name: é\n',
      'name: aé\n',
      'name: a\u2028b\n',
      'name: "a\u2028"\n',
      'name: a\rb\n',
      'name: a\tb\n',
      "name: 'a\\b'\n",
      'name: ""\n',
      'name: "\n',
      'name:\n  k: v\n   j: w\n',
      'name:\n',
      'name:    \nmetadata:\n  a: b\n',
      'm:\n  k:  \n',
      'm:\n  k:v\n',
      'name:x\n',
      '  k: v\n',
      'name: 1.0.3\nv: 1.0\nw: +1\nx: .5\ny: ~\nz: Null\n',
      'True: a\n',
      'nul: a\nnullx: b\n',
      'a: b: c\n',
      'a: b #c\n',
      'a: b#c\n',
      'a: b:\n',
      'a: [b\n',
      'a: \x01\n',
      'a: b\x7f\n',
      '\ta: b\n',
      'a: b\n\t\n',
      '',
      '\n\n',
    ]
    let defined = 0
    for (const text of [...extra, ...samples(20_000)]) {
      // The definition also takes a few texts (control characters) the wider
      // subset leaves to `yaml`; where both read a text they must agree.
      const byRegex = parseSimpleFrontmatterByRegex(text)
      const fast = parseSimpleFrontmatter(text)
      if (byRegex === undefined || fast === undefined) continue
      defined++
      expect(fast, JSON.stringify(text)).toEqual(byRegex)
    }
    expect(defined).toBeGreaterThan(200)
  })
})
