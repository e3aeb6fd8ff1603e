import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { utf8Length } from '../../src/common/artifacts/artifact-text.js'
import { isBinaryContent } from '../../src/common/artifacts/artifact-types.js'
import {
  createTurnContext,
  forgeArtifactReaders,
  JsonArtifact,
  ARTIFACT_READ_LIMITS as L,
  MarkdownArtifact,
  SpooledArtifact,
  type Tool,
} from '../../src/common/index.js'
import { expectDocumentedError, fuzzParams } from '../helpers/fuzz-config.js'

// Everything a reader returns is text for a model: no lone surrogate (half a
// character), and within the byte cap plus its bracketed header and notes.
const NOTES = 4 * 1024
const wellFormed = (text: string) => expect(/\p{Cs}/u.test(text), 'lone surrogate').toBe(false)

const piece = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 30 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom('a', 'aa', 'x y', 'é', '😀', '中文', '\r', '\t', '#', '-', '.'),
  },
  { weight: 1, arbitrary: fc.constantFrom('😀'.repeat(300), 'é'.repeat(9000), 'a'.repeat(20000)) },
)
const line = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''))
const markdownLine = fc.oneof(
  line,
  fc
    .tuple(fc.integer({ min: 1, max: 7 }), line, fc.constantFrom('', ' #', ' ##  '))
    .map(([n, t, close]) => `${'#'.repeat(n)} ${t}${close}`),
  fc.constantFrom('```', '~~~', '===', '---', ''),
)
const text = fc
  .tuple(fc.array(line, { maxLength: 40 }), fc.constantFrom('', '\n', '\r\n'))
  .map(([ls, end]) => ls.join('\n') + end)
const markdown = fc.array(markdownLine, { maxLength: 40 }).map((ls) => ls.join('\n'))
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  text.map((t) => new TextEncoder().encode(t)),
)

// Range and count arguments as a model might send them (types are the schema's job, not checked here).
const anyInt = fc.oneof(
  fc.integer({ min: -3, max: 60 }),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    2 ** 31,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    1e300,
    -1e300,
    0.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
  fc.double(),
)
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined })
const range = fc.record(
  { startLine: anyInt, endLine: anyInt, startByte: anyInt, endByte: anyInt },
  { requiredKeys: [] },
)

// Regex text: RE2 syntax, syntax RE2 refuses (backreferences, lookaround), and known ReDoS shapes.
const regexChar = fc.constantFrom(...'ab.*+?|()[]{}^$\\-,0123456789dDsSwW=!<:'.split(''))
const pattern = fc.oneof(
  fc.string({ unit: regexChar, minLength: 1, maxLength: 30 }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '(a+)+$',
    '(a|a)*b',
    '.{0,100}.{0,100}x',
    '\\d*\\d*\\d*x',
    '(\\w+)\\1',
    '(?=a)a',
    '(?<!a)b',
    '[',
    '\\',
    '(?i)A',
    'a{1000}',
    'x'.repeat(257),
    '',
  ),
)
const grepOptions = fc.record(
  {
    pattern,
    regex: fc.boolean(),
    ignoreCase: fc.boolean(),
    context: maybe(anyInt),
    maxMatches: maybe(anyInt),
  },
  { requiredKeys: ['pattern', 'regex'] },
)

const jsonKey = fc.constantFrom('a', 'b', '__proto__', 'constructor', 'prototype', 'toString', '')
const jsonDoc = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .array(fc.tuple(jsonKey, fc.jsonValue({ maxDepth: 2 })), { maxLength: 5 })
    .map((e) => `{${e.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`),
  fc.integer({ min: 1, max: 20_000 }).map((d) => `${'['.repeat(d)}1${']'.repeat(d)}`),
  fc.constantFrom('1e999', '-1e999', '123456789012345678901234567890', '{"a":1,"a":2}', '{', ''),
)
const pathChar = fc.constantFrom(...'$.[]"\'\\ -0123456789abc_'.split(''))
const jsonPath = fc.oneof(
  fc.string({ unit: pathChar, maxLength: 20 }),
  fc
    .array(fc.oneof(jsonKey, fc.integer({ min: -3, max: 3 })), { maxLength: 6 })
    .map((segs) =>
      segs.map((s) => (typeof s === 'number' ? `[${s}]` : `[${JSON.stringify(s)}]`)).join(''),
    ),
  fc.constantFrom('x'.repeat(600), '.a'.repeat(70), '[999999999]', '["\\ud800"]'),
)

/** Awaits a reader call; a rejection must be a documented code. */
async function settleAsync<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p
  } catch (err) {
    expectDocumentedError(err)
    return undefined
  }
}

function expectLineWindow(
  w: Awaited<ReturnType<SpooledArtifact['head']>>,
  lines: readonly string[] | undefined,
  cap: number,
) {
  if (isBinaryContent(w)) return
  wellFormed(w.text)
  expect(utf8Length(w.text)).toBeLessThanOrEqual(cap)
  expect(w.totalLines).toBe(lines?.length)
  if (w.firstLine === 0) {
    expect(w.text).toBe('')
    return
  }
  expect(w.firstLine).toBeGreaterThanOrEqual(1)
  expect(w.lastLine).toBeGreaterThanOrEqual(w.firstLine)
  expect(w.lastLine).toBeLessThanOrEqual(w.totalLines)
  expect(w.lastLine - w.firstLine + 1).toBeLessThanOrEqual(L.maxLines)
  if (!w.partialLine) expect(w.text).toBe(lines?.slice(w.firstLine - 1, w.lastLine).join('\n'))
}

describe('fuzz: artifact readers, range arguments', () => {
  it('head, tail and cat by lines or bytes: a window within the caps, or E_ARTIFACT_READ_INVALID', async () => {
    const ctx = createTurnContext()
    await fc.assert(
      fc.asyncProperty(bytes, maybe(anyInt), range, maybe(anyInt), async (b, n, r, maxBytes) => {
        const a = await SpooledArtifact.spool(ctx.spool, b)
        const content = await a.content()
        const lines = content.binary ? undefined : content.lines
        const cap = Math.min(maxBytes ?? L.maxBytes, L.maxBytes)
        const opts = { lines: n, ...(maxBytes === undefined ? {} : { maxBytes }) }
        for (const w of [await settleAsync(a.head(opts)), await settleAsync(a.tail(opts))]) {
          if (w) expectLineWindow(w, lines, cap)
        }
        const w = await settleAsync(a.cat(r, maxBytes))
        if (w === undefined || isBinaryContent(w)) return
        if (!('startByte' in w)) return expectLineWindow(w, lines, cap)
        wellFormed(w.text)
        expect(0 <= w.startByte && w.startByte <= w.endByte && w.endByte <= b.length).toBe(true)
        expect(w.endByte - w.startByte).toBeLessThanOrEqual(cap)
        expect(w.text).toBe(new TextDecoder().decode(b.subarray(w.startByte, w.endByte)))
        expect(utf8Length(w.text)).toBe(w.endByte - w.startByte)
      }),
      fuzzParams,
    )
  })
})

describe('fuzz: artifact_grep patterns', () => {
  it('any pattern over any text: hits within the caps, or E_ARTIFACT_READ_INVALID; RE2 never hangs', async () => {
    const ctx = createTurnContext()
    // A long line of 'a's: where a backtracking engine would take exponential time on '(a+)+$'.
    const subject = fc.oneof(text, fc.constant(`${'a'.repeat(5000)}b\n${'ab'.repeat(3000)}\n`))
    await fc.assert(
      fc.asyncProperty(subject, grepOptions, maybe(anyInt), async (t, options, maxBytes) => {
        const a = await SpooledArtifact.spool(ctx.spool, t)
        const g = await settleAsync(a.grep(options, maxBytes))
        if (g === undefined || isBinaryContent(g)) return
        const content = await a.content()
        const lines = content.binary ? [] : content.lines
        wellFormed(g.text)
        expect(utf8Length(g.text)).toBeLessThanOrEqual(Math.min(maxBytes ?? L.maxBytes, L.maxBytes))
        expect(g.matches).toBe(g.matchLines.length)
        expect(g.matches).toBeLessThanOrEqual(options.maxMatches ?? L.defaultMaxMatches)
        expect(g.totalLines).toBe(lines.length)
        expect(g.scannedLines).toBeLessThanOrEqual(g.totalLines)
        for (let i = 1; i < g.matchLines.length; i++)
          expect(g.matchLines[i]).toBeGreaterThan(g.matchLines[i - 1] as number)
        if (options.regex) return
        // Literal search: exactly the lines that contain the pattern, when nothing was cut.
        const needle = options.ignoreCase ? options.pattern.toLowerCase() : options.pattern
        const hits = lines
          .map((l, i) => [options.ignoreCase ? l.toLowerCase() : l, i + 1] as const)
          .filter(([l]) => l.includes(needle))
          .map(([, i]) => i)
        if (!g.truncated && !g.moreMatches) expect(g.matchLines).toEqual(hits)
        else expect(hits).toEqual(expect.arrayContaining([...g.matchLines]))
      }),
      fuzzParams,
    )
  })
})

describe('fuzz: JSON and markdown reader arguments', () => {
  it('artifact_json_query: a capped value or E_ARTIFACT_READ_INVALID; prototypes untouched', async () => {
    const ctx = createTurnContext()
    const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort()
    await fc.assert(
      fc.asyncProperty(jsonDoc, jsonPath, async (doc, path) => {
        const a = await JsonArtifact.spool(ctx.spool, doc)
        const q = await settleAsync(a.query(path))
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys)
        expect(({} as Record<string, unknown>).a).toBeUndefined()
        if (q === undefined || isBinaryContent(q)) return
        wellFormed(q.json)
        expect(utf8Length(q.json)).toBeLessThanOrEqual(L.maxBytes)
        if (!q.truncated) JSON.parse(q.json)
      }),
      fuzzParams,
    )
  })

  it('artifact_md_section: a capped section or E_ARTIFACT_READ_INVALID', async () => {
    const ctx = createTurnContext()
    const heading = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: fc.constantFrom('a', ' ', '>', '#', 'é'), maxLength: 20 }),
      fc.constant('x'.repeat(1001)),
    )
    const selector = fc.record({ heading, index: anyInt }, { requiredKeys: [] })
    await fc.assert(
      fc.asyncProperty(markdown, selector, async (md, sel) => {
        const a = await MarkdownArtifact.spool(ctx.spool, md)
        const s = await settleAsync(a.section(sel))
        if (s === undefined || isBinaryContent(s)) return
        const content = await a.content()
        expectLineWindow(s.window, content.binary ? [] : content.lines, L.maxBytes)
        expect(s.window.firstLine).toBe(s.entry.line)
        expect(s.window.lastLine).toBeLessThanOrEqual(s.entry.endLine)
      }),
      fuzzParams,
    )
  })
})

describe('fuzz: reader tools end to end', () => {
  const readers = forgeArtifactReaders([MarkdownArtifact, JsonArtifact])
  const anyArg = fc.oneof(anyInt, fc.string({ maxLength: 10 }), fc.anything({ maxDepth: 1 }))
  it('schema plus reader: bounded text or a documented code', async () => {
    const ctx = createTurnContext()
    const ids = await Promise.all([
      SpooledArtifact.spool(ctx.spool, 'a\nb\n# h\n'),
      MarkdownArtifact.spool(ctx.spool, `# A\n${'😀'.repeat(300)}\n## B\n${'é'.repeat(9000)}\n`),
      MarkdownArtifact.spool(ctx.spool, `# ${'t'.repeat(20_000)}\n## a${'😀'.repeat(300)}\nbody\n`),
      JsonArtifact.spool(ctx.spool, '{"__proto__":{"x":1},"a":[1,2,{"b":null}]}'),
      SpooledArtifact.spool(ctx.spool, new Uint8Array([0xff, 0, 1])),
    ]).then((as) => as.map((a) => a.id))
    const small = fc.oneof(fc.integer({ min: -1, max: 4 }), anyArg)
    // Per reader, its own arguments (each maybe absent or ill-typed), sometimes one it does not take.
    const own: Record<string, Record<string, fc.Arbitrary<unknown>>> = {
      artifact_head: { lines: small },
      artifact_tail: { lines: small },
      artifact_cat: { startLine: small, endLine: small, startByte: small, endByte: small },
      artifact_grep: { pattern, regex: fc.boolean(), context: small, maxMatches: small },
      artifact_json_query: { path: fc.oneof(jsonPath, anyArg) },
      artifact_md_section: {
        heading: fc.oneof(fc.constantFrom('A', 'B', 'a'), anyArg),
        index: small,
      },
    }
    const args = (tool: Tool) =>
      fc.record(
        {
          id: fc.oneof(fc.constantFrom(...ids, 'r_0000000000000000'), anyArg),
          ...own[tool.name],
          extra: anyArg,
        },
        { requiredKeys: [] },
      )
    const call = fc.constantFrom(...readers).chain((t) => fc.tuple(fc.constant(t), args(t)))
    await fc.assert(
      fc.asyncProperty(call, async ([tool, a]) => {
        const out = await settleAsync(tool.execute(a, ctx))
        if (out === undefined) return
        expect(typeof out).toBe('string')
        wellFormed(out as string)
        if (tool.name !== 'artifact_md_outline' && tool.name !== 'artifact_stat')
          expect(utf8Length(out as string)).toBeLessThanOrEqual(L.maxBytes + NOTES)
      }),
      fuzzParams,
    )
  })
})
