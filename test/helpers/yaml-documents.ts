import fc from 'fast-check'

/**
 * Generated YAML documents for the depth guard's property test: block and
 * flow collections, long lists, many keys, comments at any indentation,
 * quoted, block (`|`, `>`) and multi-line scalars full of indicator
 * characters, explicit (`? `) and flow keys, pairs inside flow sequences,
 * anchors and tags. Every render choice is drawn by fast-check (the `bits`
 * of a node), so a failing case shrinks and replays from its seed.
 */
export type YamlNode =
  | { t: 'scalar'; form: number; bits: number }
  | { t: 'seq'; flow: boolean; items: YamlNode[]; bits: number }
  | { t: 'map'; flow: boolean; entries: Array<[YamlNode, YamlNode]>; bits: number }

const bits = fc.nat({ max: 0xffff })
const scalar = fc.record({ t: fc.constant('scalar' as const), form: fc.nat(), bits })

/** A small random subtree (depth ≤ `depth`), wide enough for long lists and many keys. */
export function subtree(depth: number, width = 6): fc.Arbitrary<YamlNode> {
  if (depth === 0) return scalar
  const child = subtree(depth - 1, width)
  return fc.oneof(
    { weight: 3, arbitrary: scalar },
    fc.record({
      t: fc.constant('seq' as const),
      flow: fc.boolean(),
      items: fc.array(child, { maxLength: width }),
      bits,
    }),
    fc.record({
      t: fc.constant('map' as const),
      flow: fc.boolean(),
      entries: fc.array(fc.tuple(keyNode, child), { maxLength: width }),
      bits,
    }),
  )
}

// Keys are scalars, now and then a small flow collection or a block one (`? `).
const keyNode: fc.Arbitrary<YamlNode> = fc.oneof(
  { weight: 8, arbitrary: scalar },
  fc.record({
    t: fc.constant('seq' as const),
    flow: fc.boolean(),
    items: fc.array(scalar, { minLength: 1, maxLength: 3 }),
    bits,
  }),
)

/** A chain of `length` nested collections, each level with random siblings. */
export function spine(length: number): fc.Arbitrary<YamlNode> {
  const level = fc.record({
    map: fc.boolean(),
    flow: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    before: fc.array(subtree(2, 3), { maxLength: 2 }),
    after: fc.array(subtree(2, 3), { maxLength: 2 }),
    key: keyNode,
    bits,
  })
  return fc
    .tuple(fc.array(level, { minLength: length, maxLength: length }), subtree(1))
    .map(([levels, leaf]) => {
      let node = leaf
      for (const l of [...levels].reverse()) {
        const items = [...l.before, node, ...l.after]
        node = l.map
          ? {
              t: 'map',
              flow: l.flow,
              entries: items.map((v, i) => [i === l.before.length ? l.key : plainKey(i), v]),
              bits: l.bits,
            }
          : { t: 'seq', flow: l.flow, items, bits: l.bits }
      }
      return node
    })
}

const plainKey = (i: number): YamlNode => ({ t: 'scalar', form: i, bits: 0 })

/** Documents: wide and shallow, one deep chain near `limit`, or a wide one holding a deep chain. */
export function yamlDocument(limit: number): fc.Arbitrary<string> {
  // A chain of n collections composes to depth n, n+1 or n+2 (its leaf and siblings).
  const near = fc.integer({ min: limit - 4, max: limit + 2 }).chain(spine)
  const wide = fc.record({
    t: fc.constant('map' as const),
    flow: fc.constant(false),
    entries: fc.array(fc.tuple(scalar, subtree(3, 5)), { minLength: 1, maxLength: 80 }),
    bits,
  })
  const longList = fc.record({
    t: fc.constant('seq' as const),
    flow: fc.boolean(),
    items: fc.array(subtree(1), { minLength: 40, maxLength: 120 }),
    bits,
  })
  const mixed = fc.tuple(wide, near, fc.nat()).map(([w, deep, at]): YamlNode => {
    const entries: Array<[YamlNode, YamlNode]> = [...w.entries]
    entries.splice(at % (entries.length + 1), 0, [plainKey(0), deep])
    return { ...w, entries }
  })
  return fc
    .tuple(fc.oneof(wide, longList, near, mixed, subtree(4)), fc.nat({ max: 3 }))
    .map(
      ([root, prefix]) => ['', '---\n', '# head [ {\n', '%YAML 1.2\n---\n'][prefix] + render(root),
    )
}

/** Random text over YAML's indicator characters: mostly invalid, every error path. */
export const yamlNoise: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(...'ab-_:# \n\t\'"[]{}&*!|>%@`?,.01\\\r\ufeff'.split('')),
  maxLength: 300,
})

// ---------------------------------------------------------------------------
// Rendering. Every key is unique (its index in the document), so the yaml
// package never reports a duplicate key.

let keyCounter = 0
const sp = (n: number): string => ' '.repeat(n)
const bit = (n: YamlNode, k: number): boolean => ((n.bits >> k) & 1) === 1
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T

const COMMENTS = ['# c', '# - [ { ? : ] } \' "', '#[[[[', '# - - - -', '#: {a: [b]}']
const BLOCK_PLAIN = [
  'x',
  'a-b',
  'v1.2',
  'http://h/p?q=1',
  'some words',
  '42',
  'true',
  'a[b]',
  'a{b}',
  'a#b',
  'x - y',
  '~',
]
const FLOW_PLAIN = ['x', 'a-b', 'v1.2', 'some words', '42', 'null', 'a#b']
const QUOTED = [
  `'[{ - ? : # ''x'''`,
  `"[{ - : # \\"x\\" \\\\"`,
  `'- [a, b]: {c'`,
  `"? : ]]]}"`,
  `''`,
  `""`,
]
const BLOCK_LINES = [
  '- [ {',
  'key: [',
  '# not a comment',
  '? x',
  ': y',
  '',
  '  - more [[[',
  '{a: b}',
]

function comment(n: YamlNode, k: number): string {
  return pick(COMMENTS, n.bits >> k)
}

/** The lines of a block collection whose first line starts at column `ind`. */
function block(node: YamlNode, ind: number): string[] {
  if (node.t === 'seq') {
    const out: string[] = []
    for (const item of node.items) {
      if (bit(item, 9)) out.push(sp((item.bits >> 3) % (ind + 4)) + comment(item, 4))
      out.push(...seqItem(item, ind))
    }
    return out
  }
  if (node.t === 'map') {
    const out: string[] = []
    for (const [key, value] of node.entries) {
      if (bit(value, 9)) out.push(sp((value.bits >> 3) % (ind + 4)) + comment(value, 4))
      out.push(...mapEntry(key, value, ind))
    }
    return out
  }
  throw new Error('block() renders collections')
}

const isBlock = (n: YamlNode): boolean =>
  n.t !== 'scalar' && !n.flow && (n.t === 'seq' ? n.items.length > 0 : n.entries.length > 0)

/** `indicator` (`- `, `? `, `: `) at `ind` followed by `node`, compact where YAML allows. */
function afterIndicator(indicator: string, node: YamlNode, ind: number): string[] {
  if (isBlock(node)) {
    const lines = block(node, ind + 2)
    const head = lines[0] as string
    if (bit(node, 0) || head.trimStart().startsWith('#'))
      return [`${sp(ind)}${indicator.trimEnd()}`, ...lines]
    return [sp(ind) + indicator + head.slice(ind + 2), ...lines.slice(1)]
  }
  const [head, ...rest] = inline(node, ind + 2, false)
  return [`${sp(ind)}${indicator}${head}`, ...rest]
}

function seqItem(item: YamlNode, ind: number): string[] {
  return afterIndicator('- ', item, ind)
}

function mapEntry(key: YamlNode, value: YamlNode, ind: number): string[] {
  // A collection key is written explicitly (`? `): yaml 2.9 reports IMPOSSIBLE
  // for a `[..]: v` entry after a comment line, which this generator may write.
  if (key.t !== 'scalar') {
    return [...afterIndicator('? ', key, ind), ...afterIndicator(': ', value, ind)]
  }
  const k = `k${keyCounter++}`
  if (isBlock(value)) {
    const anchor = bit(value, 5) ? ` &a${keyCounter++}` : ''
    const trailing = bit(value, 6) ? ` ${comment(value, 7)}` : ''
    // A sequence may sit at its key's own indentation.
    const at = value.t === 'seq' && bit(value, 8) ? ind : ind + 2
    return [`${sp(ind)}${k}:${anchor}${trailing}`, ...block(value, at)]
  }
  const [head, ...rest] = inline(value, ind + 2, false)
  return [`${sp(ind)}${k}: ${head}`, ...rest]
}

/** A scalar or flow collection after an indicator; continuation lines at `cont`. */
function inline(node: YamlNode, cont: number, inFlow: boolean): string[] {
  if (node.t !== 'scalar') {
    const text = flow(node, cont, bit(node, 1))
    const tail = bit(node, 6) && !inFlow ? ` ${comment(node, 7)}` : ''
    return (text + tail).split('\n')
  }
  const lines = scalarText(node, cont, inFlow)
  if (!inFlow && lines.length === 1 && bit(node, 6)) lines[0] += ` ${comment(node, 7)}`
  return lines
}

function scalarText(node: YamlNode & { t: 'scalar' }, cont: number, inFlow: boolean): string[] {
  const kind = node.bits % (inFlow ? 3 : 6)
  if (kind === 0) return [pick(inFlow ? FLOW_PLAIN : BLOCK_PLAIN, node.form)]
  if (kind === 1) return [pick(QUOTED, node.form)]
  if (kind === 2) return [`!!str ${pick(FLOW_PLAIN, node.form)}`]
  if (kind === 3) {
    // Block scalar: lines that look like structure are text.
    const header = pick(['|', '>', '|-', '>+'], node.form)
    const extra = (node.form >> 3) % 3
    const count = 1 + ((node.form >> 5) % 6)
    const body = Array.from({ length: count }, (_, i) => {
      // The first line sets the content indentation; later ones may go deeper.
      const text = pick(BLOCK_LINES, (node.form >> 8) + i)
      if (i === 0) return sp(cont) + (text.trimStart() || 'x')
      return text === '' ? '' : sp(cont + extra) + text
    })
    return [header, ...body]
  }
  if (kind === 4) return [`word one`, `${sp(cont)}more [a] {b} - c`]
  return [`"line one [`, `${sp(cont)}- line two {"`]
}

/** A flow collection; with `multiline`, items on their own lines at `cont`, some with comments. */
function flow(node: YamlNode, cont: number, multiline: boolean, isKey = false): string {
  const anchor = bit(node, 5) && !isKey ? `&a${keyCounter++} ` : ''
  const tag = bit(node, 10) && !isKey ? (node.t === 'seq' ? '!!seq ' : '!!map ') : ''
  const parts: string[] = []
  if (node.t === 'seq') {
    for (const item of node.items) {
      // A one-entry map inside a flow sequence may be written as a bare pair.
      if (item.t === 'map' && item.entries.length === 1 && bit(item, 11)) {
        const [[key, value]] = item.entries as [[YamlNode, YamlNode]]
        parts.push(`${flowKey(key)}: ${flowValue(value, cont, multiline)}`)
      } else parts.push(flowValue(item, cont, multiline))
    }
  } else if (node.t === 'map') {
    for (const [key, value] of node.entries)
      parts.push(`${flowKey(key)}: ${flowValue(value, cont, multiline)}`)
  }
  const [open, close] = node.t === 'seq' ? ['[', ']'] : ['{', '}']
  if (!multiline || parts.length === 0) return `${anchor}${tag}${open}${parts.join(', ')}${close}`
  const sep = parts.map((p, i) =>
    i === parts.length - 1 ? p : `${p},${bit(node, 12 + (i % 4)) ? ` ${comment(node, i)}` : ''}`,
  )
  return `${anchor}${tag}${open}\n${sep.map((p) => sp(cont) + p).join('\n')}\n${sp(cont)}${close}`
}

function flowKey(key: YamlNode): string {
  return key.t === 'scalar' ? `k${keyCounter++}` : flow(key, 0, false, true)
}

function flowValue(node: YamlNode, cont: number, multiline: boolean): string {
  if (node.t === 'scalar') return scalarText(node, cont, true).join('\n')
  return flow(node, cont + 1, multiline && bit(node, 1))
}

/** The YAML text of a document whose root is `root`. */
export function render(root: YamlNode): string {
  keyCounter = 0
  if (isBlock(root)) return `${block(root, 0).join('\n')}\n`
  return `${inline(root, 1, false).join('\n')}\n`
}
