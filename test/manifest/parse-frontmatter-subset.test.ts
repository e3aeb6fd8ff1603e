import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseFrontmatterSubset } from '../../src/manifest/parse-frontmatter-subset.js'
import { parseSimpleFrontmatter } from '../../src/manifest/parse-simple-frontmatter.js'
import { numRuns } from '../helpers/fuzz-config.js'
import { canonicalValue as canon, yamlPathValue } from '../helpers/yaml-path.js'

/** The fast path gives `yaml`'s value or declines; never a different value. Returns whether it accepted. */
function agrees(text: string): boolean {
  const fast = parseSimpleFrontmatter(text)
  if (fast === undefined) return false
  expect(canon(fast), JSON.stringify(text)).toBe(canon(yamlPathValue(text)))
  return true
}

// Words biased towards what changes YAML's meaning: indicators, quotes,
// escapes, core-schema nulls, bools and numbers, spaces, non-ASCII.
const atom = fc.constantFrom(
  ...['a', 'Zed', 'é', '😀', '1', '0', '-', '.', ':', '#', ' ', '  ', "'", "''", '"', '\\'],
  ...['\\n', '\\t', '\\x41', '\\u00e9', '\\U0001F600', '\\q', '\\ ', '[', ']', '{', ',', '&'],
  ...['*', '!', '|', '>', '?', '%', '@', '`', '~', 'null', 'True', 'false', '12', '-7', '0o17'],
  ...['0x1F', '1.5', '1e3', '.inf', '-.Inf', '.nan', '12345678901234567890', '1.0', 'yes', '\t'],
)
const hostile = fc.array(atom, { minLength: 0, maxLength: 6 }).map((a) => a.join(''))
const safe = fc.constantFrom('Use', 'when: x', 'it', 'reads', 'PDF', 'v1.2', 'a-b', 'é😀', 'x y')
const anyWord = fc.oneof(
  { weight: 2, arbitrary: fc.array(safe, { minLength: 1, maxLength: 3 }).map((a) => a.join(' ')) },
  { weight: 1, arbitrary: hostile },
)
const isMap = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)
// Mostly safe words: nested documents then reach the subset, not only its refusals.
const mildWord = fc.oneof(
  { weight: 8, arbitrary: fc.array(safe, { minLength: 1, maxLength: 3 }).map((a) => a.join(' ')) },
  { weight: 1, arbitrary: hostile },
)
const indent = fc.constantFrom('', ' ', '  ', '    ')

/** A value as it is written after `key:`, possibly over several lines indented by `pad`. */
function valueText(pad: string, word = anyWord): fc.Arbitrary<string> {
  const lines = fc.array(fc.oneof(word, fc.constant('')), { minLength: 1, maxLength: 4 })
  const cont = (ls: string[], extra: string) => ls.map((l) => (l === '' ? '' : pad + extra + l))
  return fc.oneof(
    word.map((w) => ` ${w}`),
    fc.tuple(word, lines, indent).map(([w, ls, x]) => ` ${w}\n${cont(ls, x).join('\n')}`),
    fc
      .tuple(fc.constantFrom("'", '"'), word, lines, indent, word)
      .map(([q, w, ls, x, last]) => ` ${q}${w}\n${cont(ls, x).join('\n')}\n${pad}${x}${last}${q}`),
    fc.tuple(fc.constantFrom("'", '"'), word).map(([q, w]) => ` ${q}${w}${q}`),
    fc
      .tuple(fc.constantFrom('|', '>'), fc.constantFrom('', '-', '+', '2', ' # c'), lines, indent)
      .map(([h, c, ls, x]) => ` ${h}${c}\n${cont(ls, ` ${x}`).join('\n')}`),
    fc.array(word, { maxLength: 4 }).map((ws) => ` [${ws.join(', ')}]`),
    fc.constant(''),
  )
}

const nestedKey = fc.constantFrom(
  ...['author', 'v.1', 'k', 'on', 'a-b', 'emoji', 'requires', 'bins', 'tools', 'x_2', 'Y', 'n9'],
)
const extraIndent = fc.constantFrom(' ', '  ', '  ', '    ')
// Mostly aligned with its siblings; sometimes one column off, which `yaml` refuses or reads otherwise.
const jitter = fc.constantFrom('', '', '', '', '', '', '', '', ' ', '  ')

/** One `key: …` entry of a block mapping at `pad`, its value possibly a mapping `depth` levels deep. */
function entry(pad: string, depth: number): fc.Arbitrary<string> {
  const leaves = [
    fc.tuple(nestedKey, valueText(`${pad}  `, mildWord)).map(([k, v]) => `${pad}${k}:${v}`),
    // A scalar on the line below its key (at the key's column it is a sibling, not a value).
    fc
      .tuple(nestedKey, fc.constantFrom('', ' ', '  ', '    '), mildWord, fc.option(mildWord))
      .map(
        ([k, x, w, more]) =>
          `${pad}${k}:\n${pad}${x}${w}${more === null ? '' : `\n${pad}${x}${more}`}`,
      ),
    // A sequence under the key, at its column or deeper.
    fc
      .tuple(
        nestedKey,
        fc.constantFrom('', '  '),
        fc.array(valueText(`${pad}   `, mildWord), { minLength: 1, maxLength: 3 }),
      )
      .map(([k, x, vs]) => `${pad}${k}:\n${vs.map((v) => `${pad}${x}-${v}`).join('\n')}`),
  ]
  if (depth === 0) return fc.oneof(...leaves)
  const children = fc.tuple(nestedKey, extraIndent).chain(([k, x]) =>
    fc
      .array(
        jitter.chain((j) => entry(`${pad}${x}${j}`, depth - 1)),
        { minLength: 1, maxLength: 3 },
      )
      .map((es) => `${pad}${k}:\n${es.join('\n')}`),
  )
  const comment = fc.constantFrom(`${pad}# c`, '')
  return fc.oneof(
    ...leaves,
    { weight: 4, arbitrary: children },
    { weight: 2, arbitrary: itemMaps(pad, depth) },
    comment,
  )
}

/** A key owning a sequence of compact mappings (`- key: v`, its further keys aligned under the first). */
function itemMaps(pad: string, depth: number): fc.Arbitrary<string> {
  return fc
    .tuple(nestedKey, fc.constantFrom('', '  '), fc.constantFrom('- ', '-  '))
    .chain(([k, x, dash]) =>
      fc
        .array(
          // Keys unique within an item: a duplicate is refused by both, and reaches nothing new.
          fc
            .uniqueArray(entry(`${pad}${x}${' '.repeat(dash.length)}`, depth - 1), {
              minLength: 1,
              maxLength: 3,
              selector: (e) => e.trimStart().split(':')[0],
            })
            .map(
              (es) =>
                `${pad}${x}${dash}${es.join('\n').slice(pad.length + x.length + dash.length)}`,
            ),
          { minLength: 1, maxLength: 3 },
        )
        .map((items) => `${pad}${k}:\n${items.join('\n')}`),
    )
}

/** A frontmatter document: top-level keys with values, sequences, nested maps, comments, blanks. */
const documents = fc
  .array(
    fc.oneof(
      fc
        .tuple(
          fc.constantFrom('name', 'description', 'on', 'x_1', 'a-b', 'null', '__proto__'),
          valueText(' '),
        )
        .map(([k, v]) => `${k}:${v}`),
      fc
        .tuple(
          fc.constantFrom('tags', 'list'),
          indent,
          fc.array(valueText('  '), { minLength: 1, maxLength: 3 }),
        )
        .map(([k, pad, vs]) => `${k}:\n${vs.map((v) => `${pad}-${v}`).join('\n')}`),
      fc
        .tuple(
          fc.constantFrom('metadata', 'm'),
          fc.array(fc.tuple(fc.constantFrom('author', 'v.1', 'k'), valueText('    ')), {
            minLength: 1,
            maxLength: 3,
          }),
        )
        .map(([k, kvs]) => `${k}:\n${kvs.map(([kk, v]) => `  ${kk}:${v}`).join('\n')}`),
      fc.constantFrom('# comment', '', '  # indented comment', '   '),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => `${parts.join('\n')}\n`)

// JSON values with keys and strings biased to YAML indicators and escapes.
const jsonText = fc.string({
  unit: fc.constantFrom('a', ':', '#', ' ', '"', '\\', '\n', 'é', '😀', '{', ',', '\u0000'),
})
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonText,
    fc.constantFrom(true, false, null, 0, 1.5, -7, 1e21, 2 ** 53, -(2 ** 53) - 2, 1e-7),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(jsonText, tie('value'), { maxKeys: 3 }),
  ),
})).value
// Written as tools write it, compact or spaced, or with a duplicate key spliced in.
const jsonDocuments = fc
  .tuple(fc.dictionary(jsonText, jsonValue, { minKeys: 1, maxKeys: 3 }), fc.constantFrom(0, 1, 2))
  .map(([v, style]) => {
    const text = style === 1 ? JSON.stringify(v, null, 1).replace(/\n */g, ' ') : JSON.stringify(v)
    return `name: x\nmetadata: ${style === 2 ? text.replace(/^\{("[^"]*":)/, '{$1 1,$1') : text}\n`
  })

// Pretty-printed over lines, as tools write `metadata` blocks: on the key's
// line or below it, sometimes with trailing commas, sometimes a line pulled
// back to the key's column (which `yaml` reads otherwise or refuses).
const jsonLineDocuments = fc
  .tuple(
    fc.dictionary(jsonText, jsonValue, { minKeys: 1, maxKeys: 3 }),
    fc.constantFrom(1, 2, 4),
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom('', '', '', 'pull', 'blank'),
    fc.constantFrom('', '  '),
  )
  .map(([v, width, below, trailing, twist, pad]) => {
    let lines = JSON.stringify(v, null, width).split('\n')
    if (trailing)
      lines = lines.map((l, i) =>
        /^ *[}\]]/.test(lines[i + 1] ?? '') && !/[[{]$/.test(l) ? `${l},` : l,
      )
    if (twist === 'pull' && lines.length > 2) lines[1] = lines[1]!.trimStart()
    if (twist === 'blank' && lines.length > 2) lines.splice(1, 0, '')
    const inner = pad === '' ? '' : '  '
    const body = lines
      .map((l, i) => (i === 0 && !below ? l : l === '' ? '' : `${pad}${inner}  ${l}`))
      .join('\n')
    const key = pad === '' ? 'metadata' : 'metadata:\n  inner'
    return `name: x\n${key}:${below ? '\n' : ' '}${body}\nafter: 1\n`
  })

/** Documents of nested block mappings, up to four levels. */
const nestedDocuments = fc
  .array(entry('', 3), { minLength: 1, maxLength: 3 })
  .map((parts) => `${parts.join('\n')}\n`)

/** Documents of one sequence of compact mappings, as `hooks:` and `install:` lists are written. */
const itemMapDocuments = itemMaps('', 2).map((text) => `name: x\n${text}\n`)

describe('parseFrontmatterSubset', () => {
  it('reads the shapes real frontmatter has, as yaml does', () => {
    const cases: [string, unknown][] = [
      ["d: 'a\n  b\n\n  c\n\n  '\n", { d: 'a b\nc\n' }],
      ['d: a\n  b  \n\n\n  c\n', { d: 'a b\n\nc' }],
      ['d: "x\\ty\\u00e9 \\\n    z"\n', { d: 'x\tyé z' }],
      ['d: |-\n  one\n    two\n\n  three\nn: 1\n', { d: 'one\n  two\n\nthree', n: 1 }],
      ['d: >\n  one\n  two\n\n  three\n', { d: 'one two\nthree\n' }],
      ['d: |+\n  a\n\nn: x\n', { d: 'a\n\n', n: 'x' }],
      ['t: [a, "b, c", \'d\', 1, true, null]\n', { t: ['a', 'b, c', 'd', 1, true, null] }],
      ['t:\n- a\n- 1.0\nu:\n  - b\n', { t: ['a', 1], u: ['b'] }],
      [
        'v: 1.0\nw: 0x1F\nx: 12345678901234567890\ny: ~\nz:\n',
        { v: 1, w: 31, x: '12345678901234567890', y: null, z: null },
      ],
      ['m:\n  a: [x]\n  b: |\n    t\n', { m: { a: ['x'], b: 't\n' } }],
      // Shaped like the corpus's metadata blocks: deeper maps, sequences under nested keys.
      [
        'metadata:\n  author: evos\n  clawdbot:\n    emoji: ""\n    requires:\n      bins: [a, b]\n  tools:\n  - Read\n  - Write\n  list:\n    - x\nn: 1\n',
        {
          metadata: {
            author: 'evos',
            clawdbot: { emoji: '', requires: { bins: ['a', 'b'] } },
            tools: ['Read', 'Write'],
            list: ['x'],
          },
          n: 1,
        },
      ],
      // One-line JSON, as tools write metadata.
      [
        'metadata: {"nanobot":{"emoji":"\\ud83e\\uddfe","requires":{"bins":["s"]},"n":[1.5,-2,1e3,true,null,{}]}}\n',
        {
          metadata: {
            nanobot: { emoji: '🧾', requires: { bins: ['s'] }, n: [1.5, -2, 1000, true, null, {}] },
          },
        },
      ],
      ['m: { "o": { "e": "x" }, "l": [ 1 , 2 ] }\n', { m: { o: { e: 'x' }, l: [1, 2] } }],
      // JSON pretty-printed under its key, trailing commas and all (the openclaw blocks).
      [
        'metadata:\n  {\n    "openclaw":\n      {\n        "os": ["darwin", "linux"],\n        "install":\n          [\n            { "id": "brew", "bins": ["x"], },\n          ],\n      },\n  }\nn: 1\n',
        {
          metadata: {
            openclaw: { os: ['darwin', 'linux'], install: [{ id: 'brew', bins: ['x'] }] },
          },
          n: 1,
        },
      ],
      ['m: {\n    "a": 1,\n    "b": [true]\n  }\n', { m: { a: 1, b: [true] } }],
      // Sequences of compact mappings (hooks, install lists, pyyaml's output of lists of dicts).
      [
        'f3:\n  version: \'1.1\'\n  techniques:\n  - id: T1660\n    name: Phishing\n  - id: T1110\n    tags:\n    - a\n    nested:\n      deep: [x]\nhooks:\n  PreToolUse:\n    -  matcher: "Write|Edit"\n       hooks:\n         - type: command\n',
        {
          f3: {
            version: '1.1',
            techniques: [
              { id: 'T1660', name: 'Phishing' },
              { id: 'T1110', tags: ['a'], nested: { deep: ['x'] } },
            ],
          },
          hooks: { PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command' }] }] },
        },
      ],
      // A scalar on the lines below its key.
      [
        'description:\n  Web search.\n  Use it.\nm:\n  k:\n    "q"\n  j:\n',
        { description: 'Web search. Use it.', m: { k: 'q', j: null } },
      ],
      // Shaped like the public collections' frontmatter (pyyaml's output, metadata blocks).
      [
        "name: a-b\ndescription: 'Analyzes X (MBR),\n  or UEFI. Covers ''Y''.\n\n  '\ntags:\n- malware\n- MBR-analysis\nversion: 1.0.0\nnist_csf:\n- DE.AE-02\n",
        {
          name: 'a-b',
          description: "Analyzes X (MBR), or UEFI. Covers 'Y'.\n",
          tags: ['malware', 'MBR-analysis'],
          version: '1.0.0',
          nist_csf: ['DE.AE-02'],
        },
      ],
      [
        'name: x\ndescription: "Automate tasks via Rube MCP (Composio)."\nrequires:\n  mcp: [rube]\nversion: 2.1\n',
        {
          name: 'x',
          description: 'Automate tasks via Rube MCP (Composio).',
          requires: { mcp: ['rube'] },
          version: 2.1,
        },
      ],
    ]
    for (const [text, want] of cases) {
      expect(canon(parseFrontmatterSubset(text)), text).toBe(canon(want))
      expect(agrees(text), text).toBe(true)
    }
  })

  it('declines what it cannot be certain of', () => {
    for (const text of [
      'a: &x y\n',
      'a: {b: c}\n',
      'a: {"b":1,"b":2}\n',
      'a: {"__proto__":1}\n',
      'a: {"b" :1}\n',
      'a: [{"b":1}]x\n',
      'a: {"b":-0}\n',
      'a: {"b":12345678901234567890}\n',
      'a: {"b":1} # c\n',
      `a: ${'['.repeat(17)}${']'.repeat(17)}\n`,
      'a: x # c\n',
      'a: [x,]\n',
      'a: |2\n   x\n',
      'a: |\n    \n  x\n',
      'a: >\n  x\n    y\n',
      'a: "\\q"\n',
      "a: 'x\nb: y'\n",
      'a: x\n\tb\n',
      'a:\n  b:\n  - x\n   - y\n',
      'a:\n    b: 1\n  c: 2\n',
      'a:\n  b:\n    |\n      x\n',
      'a:\n  - x\n  b: 1\n',
      `a:\n${Array.from({ length: 9 }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')} x\n`,
      'a:\n  - x\n   - y\n',
      'a: x',
      'a: x\na: y\n',
      'a: x\u2028\n',
      // JSON over lines: a string across a break, a line at the key's column, text after it.
      'm: {"a":\n  "b\n  c"}\n',
      'm: {\n"a": 1}\n',
      'm:\n  {\n    "a": 1\n  } x\n',
      'm: {\n  "a": 1 # c\n  }\n',
      // Compact mappings in a sequence: a key out of line, a duplicate, too deep.
      'k:\n- a: 1\n   b: 2\n',
      'k:\n- a: 1\n  a: 2\n',
      `k:\n${Array.from({ length: 8 }, (_, i) => `${' '.repeat(2 * i)}- k:`).join('\n')} x\n`,
    ])
      expect(parseFrontmatterSubset(text), JSON.stringify(text)).toBeUndefined()
  })

  it('gives the yaml value or declines, on generated frontmatter (property)', () => {
    let accepted = 0
    let deep = 0
    let json = 0
    let jsonLines = 0
    let itemMapsSeen = 0
    let runs = 0
    fc.assert(
      fc.property(
        fc.oneof(documents, nestedDocuments, jsonDocuments, jsonLineDocuments, itemMapDocuments),
        (text) => {
          runs++
          if (!agrees(text)) return
          accepted++
          // A mapping two levels under the top: the nested shapes are reached too.
          const values = Object.values(parseSimpleFrontmatter(text)!)
          if (values.some((v) => isMap(v) && Object.values(v as object).some(isMap))) deep++
          if (text.includes('metadata: {')) json++
          if (/\n *\{\n/.test(text) || /: \{\n/.test(text)) jsonLines++
          if (/\n *- [A-Za-z_][\w.-]*:/.test(text)) itemMapsSeen++
        },
      ),
      { numRuns: numRuns * 50 },
    )
    // The generator reaches the subset often, not only its refusals.
    expect(accepted).toBeGreaterThan(runs / 20)
    expect(deep, `${deep} of ${runs}`).toBeGreaterThan(runs / 200)
    expect(json, `${json} of ${runs}`).toBeGreaterThan(runs / 25)
    // JSON over lines and sequences of compact mappings are accepted too, not only declined.
    expect(jsonLines, `${jsonLines} of ${runs}`).toBeGreaterThan(runs / 50)
    expect(itemMapsSeen, `${itemMapsSeen} of ${runs}`).toBeGreaterThan(runs / 400)
  })
})
