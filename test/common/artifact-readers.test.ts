import { describe, expect, it } from 'vitest'
import {
  ARTIFACT_READ_LIMITS,
  createTurnContext,
  forgeArtifactReaders,
  MemorySpoolStore,
  SpooledArtifact,
  type Tool,
  type TurnContext,
} from '../../src/common/index.js'
import { rejectsWith } from '../helpers/error-code.js'
import { numbered } from '../helpers/turn.js'

const readers = new Map(forgeArtifactReaders().map((t) => [t.name, t] as const))
const call = (ctx: TurnContext, name: string, args: unknown) =>
  (readers.get(name) as Tool).execute(args, ctx) as Promise<string>

async function setup(content: string | Uint8Array, mimeType?: string) {
  const ctx = createTurnContext()
  const artifact = await SpooledArtifact.spool(ctx.spool, content, mimeType ? { mimeType } : {})
  return { ctx, id: artifact.id, artifact }
}

describe('SpooledArtifact', () => {
  it('spools as kind text and reads back', async () => {
    const { artifact, ctx } = await setup('a\nb\n')
    expect(SpooledArtifact.kind).toBe('text')
    expect(artifact.kind).toBe('text')
    expect(artifact.retrievable.kind).toBe('text')
    expect(artifact.mimeType).toBe('text/plain')
    expect(artifact.size).toBe(4)
    expect(new TextDecoder().decode(await artifact.bytes())).toBe('a\nb\n')
    const opened = await SpooledArtifact.open(ctx.spool, artifact.id)
    expect(opened.retrievable).toEqual(artifact.retrievable)
    expect(SpooledArtifact.isInstance(opened)).toBe(true)
    expect(SpooledArtifact.isInstance(artifact.retrievable)).toBe(false)
  })

  it('open of an unknown id is E_ARTIFACT_NOT_FOUND', async () => {
    await rejectsWith(
      SpooledArtifact.open(new MemorySpoolStore(), 'r_0123456789abcdef'),
      'E_ARTIFACT_NOT_FOUND',
    )
  })
})

describe('artifact_head / artifact_tail', () => {
  it('head returns the first N lines and says how to continue', async () => {
    const { ctx, id } = await setup(numbered(50))
    const out = await call(ctx, 'artifact_head', { id, lines: 3 })
    expect(out).toContain(`lines 1-3 of 50`)
    expect(out).toContain('line 1\nline 2\nline 3')
    expect(out).not.toContain('line 4')
    expect(out).toContain('47 lines after line 3')
    expect(out).toContain(`"startLine":4`)
  })

  it('head defaults to 200 lines', async () => {
    const { ctx, id } = await setup(numbered(500))
    const out = await call(ctx, 'artifact_head', { id })
    expect(out).toContain('lines 1-200 of 500')
    expect(out).toContain('line 200\n')
    expect(out).not.toContain('line 201\n')
  })

  it('head of a short artifact reports no truncation', async () => {
    const { ctx, id } = await setup('only\n')
    const out = await call(ctx, 'artifact_head', { id, lines: 10 })
    expect(out).toBe(`[artifact ${id} lines 1-1 of 1]\nonly`)
  })

  it('tail returns the last N lines and says how to page back', async () => {
    const { ctx, id } = await setup(numbered(50))
    const out = await call(ctx, 'artifact_tail', { id, lines: 2 })
    expect(out).toContain('lines 49-50 of 50')
    expect(out).toContain('line 49\nline 50')
    expect(out).toContain('48 lines before line 49')
  })

  it('caps bytes per call and reports truncation', async () => {
    const line = 'x'.repeat(1000)
    const { ctx, id } = await setup(`${Array.from({ length: 100 }, () => line).join('\n')}\n`)
    const out = await call(ctx, 'artifact_head', { id, lines: 100 })
    const shown = out.split('\n').filter((l) => l === line).length
    expect(shown).toBeLessThan(100)
    expect(shown * 1001).toBeLessThanOrEqual(ARTIFACT_READ_LIMITS.maxBytes)
    expect(out).toContain('truncated at the 16384-byte cap')
    const tail = await call(ctx, 'artifact_tail', { id, lines: 100 })
    expect(tail).toContain('truncated')
  })

  it('clamps a huge line count to the line cap', async () => {
    const { ctx, id } = await setup(numbered(3000))
    const out = await call(ctx, 'artifact_head', { id, lines: 1_000_000 })
    expect(out).not.toContain(`line ${ARTIFACT_READ_LIMITS.maxLines + 1}\n`)
  })

  it('cuts a single over-long line and says so', async () => {
    const { ctx, id } = await setup(`${'é'.repeat(20_000)}\nnext\n`)
    const out = await call(ctx, 'artifact_head', { id, lines: 1 })
    expect(out).toContain('longer than the 16384-byte cap')
    expect(new TextEncoder().encode(out).byteLength).toBeLessThan(
      ARTIFACT_READ_LIMITS.maxBytes + 1000,
    )
    expect(out).not.toContain('\uFFFD')
  })

  it('rejects a non-positive line count with E_ARTIFACT_READ_INVALID', async () => {
    const { ctx, id } = await setup('a\n')
    await rejectsWith(call(ctx, 'artifact_head', { id, lines: 0 }), 'E_ARTIFACT_READ_INVALID')
    await rejectsWith(call(ctx, 'artifact_tail', { id, lines: -5 }), 'E_ARTIFACT_READ_INVALID')
  })

  it('reports an empty artifact', async () => {
    const { ctx, id } = await setup('')
    expect(await call(ctx, 'artifact_head', { id })).toContain('is empty')
  })

  it('handles CRLF line endings', async () => {
    const { ctx, id } = await setup('a\r\nb\r\n')
    const out = await call(ctx, 'artifact_head', { id })
    expect(out).toContain('lines 1-2 of 2')
    expect(out).not.toContain('\r')
  })
})

describe('artifact_cat', () => {
  it('reads a line range', async () => {
    const { ctx, id } = await setup(numbered(20))
    const out = await call(ctx, 'artifact_cat', { id, startLine: 5, endLine: 7 })
    expect(out).toContain('lines 5-7 of 20')
    expect(out).toContain('line 5\nline 6\nline 7')
    expect(out).not.toContain('line 8')
  })

  it('clamps endLine past the end', async () => {
    const { ctx, id } = await setup(numbered(5))
    const out = await call(ctx, 'artifact_cat', { id, startLine: 4, endLine: 99 })
    expect(out).toContain('lines 4-5 of 5')
  })

  it('reads a byte range, snapping to character boundaries', async () => {
    const { ctx, id } = await setup('héllo wörld')
    const out = await call(ctx, 'artifact_cat', { id, startByte: 0, endByte: 5 })
    expect(out).toContain('bytes 0-5 of 13')
    expect(out).toContain('héll')
    const mid = await call(ctx, 'artifact_cat', { id, startByte: 2, endByte: 13 })
    expect(mid).toContain('bytes 3-13')
    expect(mid).toContain('llo wörld')
    expect(mid).not.toContain('\uFFFD')
  })

  it('caps a byte range and says where to continue', async () => {
    const { ctx, id } = await setup('z'.repeat(100_000))
    const out = await call(ctx, 'artifact_cat', { id, startByte: 10, endByte: 90_000 })
    expect(out).toContain(`bytes 10-${10 + ARTIFACT_READ_LIMITS.maxBytes} of 100000`)
    expect(out).toContain(`"startByte":${10 + ARTIFACT_READ_LIMITS.maxBytes}`)
    expect(out).toContain('truncated')
  })

  it('rejects bad ranges with E_ARTIFACT_READ_INVALID', async () => {
    const { ctx, id } = await setup(numbered(10))
    for (const range of [
      { startLine: 0 },
      { startLine: 5, endLine: 4 },
      { startLine: 11 },
      { startByte: -1 },
      { startByte: 5, endByte: 5 },
      { startByte: 1000 },
      { startLine: 1, startByte: 0 },
    ]) {
      await rejectsWith(call(ctx, 'artifact_cat', { id, ...range }), 'E_ARTIFACT_READ_INVALID')
    }
  })

  it('rejects a non-integer range as invalid arguments', async () => {
    const { ctx, id } = await setup(numbered(10))
    await rejectsWith(call(ctx, 'artifact_cat', { id, startLine: 1.5 }), 'E_TOOL_INVALID_ARGS')
    await rejectsWith(call(ctx, 'artifact_cat', { id, bogus: 1 }), 'E_TOOL_INVALID_ARGS')
  })
})

describe('artifact_grep', () => {
  const text = [
    'alpha',
    'beta',
    'gamma',
    'delta (x+y)',
    'beta again',
    'epsilon',
    'zeta',
    'BETA upper',
  ].join('\n')

  it('matches literally by default, with line numbers', async () => {
    const { ctx, id } = await setup(text)
    const out = await call(ctx, 'artifact_grep', { id, pattern: '(x+y)' })
    expect(out).toContain('1 matching lines')
    expect(out).toContain('4:delta (x+y)')
  })

  it('supports ignoreCase, context lines and group separators', async () => {
    const { ctx, id } = await setup(text)
    const out = await call(ctx, 'artifact_grep', {
      id,
      pattern: 'beta',
      ignoreCase: true,
      context: 1,
    })
    expect(out).toContain('1-alpha\n2:beta\n3-gamma')
    expect(out).toContain('4-delta (x+y)\n5:beta again\n6-epsilon')
    expect(out).toContain('6-epsilon\n7-zeta\n8:BETA upper')
    expect(out).not.toContain('--')
    expect(out).toContain('3 matching lines')
    const bare = await call(ctx, 'artifact_grep', { id, pattern: 'beta', ignoreCase: true })
    expect(bare).toContain('2:beta\n--\n5:beta again\n--\n8:BETA upper')
  })

  it('supports regexes', async () => {
    const { ctx, id } = await setup(text)
    const out = await call(ctx, 'artifact_grep', { id, pattern: '^[bd]e', regex: true })
    expect(out).toContain('2:beta')
    expect(out).toContain('4:delta')
    expect(out).toContain('5:beta again')
    expect(out).not.toMatch(/^8:/m)
  })

  it('stops at maxMatches and says more exist', async () => {
    const { ctx, id } = await setup(numbered(100))
    const out = await call(ctx, 'artifact_grep', { id, pattern: 'line', maxMatches: 3 })
    expect(out).toContain('3 matching lines')
    expect(out).toContain('3:line 3')
    expect(out).not.toContain('4:line 4')
    expect(out).toContain('more matches')
  })

  it('reports no match', async () => {
    const { ctx, id } = await setup(text)
    expect(await call(ctx, 'artifact_grep', { id, pattern: 'omega' })).toContain('no lines match')
  })

  it('runs backtracking-prone regexes in linear time instead of hanging the host', async () => {
    // Each of these takes hours or longer in a backtracking engine on these lines.
    const long = `${'a'.repeat(5000)}!`
    const digits = `${'1'.repeat(4000)}`
    const { ctx, id } = await setup(`${long}\n${digits}\naab\nxyz 12x\n`)
    // [pattern, the matching line numbers]
    const cases: [string, number[]][] = [
      ['(a+)+$', []],
      ['(a*)*b', [3]],
      ['(a|a)*$', [1, 2, 3, 4]],
      ['(x+x+)+y', []],
      ['(\\w+\\s?)+$', [2, 3, 4]],
      ['(a|aa){2,}$', []],
      ['.{0,100}.{0,100}.{0,100}.{0,100}x', [4]],
      ['a{0,50}a{0,50}a{0,50}b', [3]],
      ['\\d*\\d*\\d*x', [4]],
    ]
    for (const [pattern, lines] of cases) {
      const out = await call(ctx, 'artifact_grep', { id, pattern, regex: true })
      const hits = [...out.matchAll(/^(\d+):/gm)].map((m) => Number(m[1]))
      expect(hits, pattern).toEqual(lines)
      if (lines.length === 0) expect(out, pattern).toContain('no lines match')
    }
    // No linear-time algorithm exists for backreferences or lookaround: refused, typed.
    for (const pattern of ['(a)\\1', 'a(?=b)', '(?<!a)b']) {
      const err = await rejectsWith(
        call(ctx, 'artifact_grep', { id, pattern, regex: true }),
        'E_ARTIFACT_READ_INVALID',
      )
      expect(err.message).toMatch(/RE2 syntax/)
    }
    // The same strings are harmless as literals, and ignoreCase still works.
    expect(await call(ctx, 'artifact_grep', { id, pattern: '(a+)+$' })).toContain('no lines match')
    expect(
      await call(ctx, 'artifact_grep', { id, pattern: 'XYZ', regex: true, ignoreCase: true }),
    ).toContain('4:xyz 12x')
  })

  it('rejects an over-long or empty pattern and a bad regex', async () => {
    const { ctx, id } = await setup(text)
    await rejectsWith(
      call(ctx, 'artifact_grep', {
        id,
        pattern: 'a'.repeat(ARTIFACT_READ_LIMITS.maxPatternLength + 1),
      }),
      'E_ARTIFACT_READ_INVALID',
    )
    await rejectsWith(call(ctx, 'artifact_grep', { id, pattern: '' }), 'E_ARTIFACT_READ_INVALID')
    await rejectsWith(
      call(ctx, 'artifact_grep', { id, pattern: '([a-', regex: true }),
      'E_ARTIFACT_READ_INVALID',
    )
    await rejectsWith(
      call(ctx, 'artifact_grep', { id, pattern: 'a', context: 11 }),
      'E_ARTIFACT_READ_INVALID',
    )
    await rejectsWith(
      call(ctx, 'artifact_grep', { id, pattern: 'a', maxMatches: 0 }),
      'E_ARTIFACT_READ_INVALID',
    )
  })

  it('cuts an over-long matching line between characters, never inside a surrogate pair', async () => {
    // Found by test/fuzz: a cut at 500 UTF-16 units left half an emoji in the output.
    const { ctx, id } = await setup(`x${'😀'.repeat(300)}\n`)
    const out = await call(ctx, 'artifact_grep', { id, pattern: 'x' })
    expect(out).toContain(`1:x${'😀'.repeat(249)}…`)
    expect(/\p{Cs}/u.test(out)).toBe(false)
  })

  it('caps the output bytes', async () => {
    const { ctx, id } = await setup(
      Array.from({ length: 400 }, (_, i) => `match ${i} ${'y'.repeat(400)}`).join('\n'),
    )
    const out = await call(ctx, 'artifact_grep', { id, pattern: 'match', maxMatches: 400 })
    expect(new TextEncoder().encode(out).byteLength).toBeLessThan(
      ARTIFACT_READ_LIMITS.maxBytes + 1000,
    )
    expect(out).toContain('truncated')
  })
})

describe('artifact_stat and binary content', () => {
  it('stat describes kind, size, lines and provenance', async () => {
    const ctx = createTurnContext()
    const artifact = await SpooledArtifact.spool(ctx.spool, 'a\nb\nc\n', {
      title: 'out',
      provenance: { skill: 'pdf' },
    })
    const stat = JSON.parse(await call(ctx, 'artifact_stat', { id: artifact.id }))
    expect(stat).toMatchObject({
      id: artifact.id,
      kind: 'text',
      size: 6,
      lines: 3,
      binary: false,
      title: 'out',
      trusted: false,
    })
    expect(stat.provenance).toEqual({ skill: 'pdf' })
  })

  it('describes binary content instead of dumping it', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe])
    const { ctx, id } = await setup(png, 'image/png')
    for (const [name, args] of [
      ['artifact_head', {}],
      ['artifact_tail', {}],
      ['artifact_cat', { startByte: 0 }],
      ['artifact_grep', { pattern: 'PNG' }],
    ] as const) {
      const out = await call(ctx, name, { id, ...args })
      expect(out).toContain('is binary (image/png, 10 bytes)')
      expect(out).not.toContain('PNG')
    }
    expect(JSON.parse(await call(ctx, 'artifact_stat', { id })).binary).toBe(true)
  })

  it('treats invalid UTF-8 under a text MIME type as binary', async () => {
    const { ctx, id } = await setup(new Uint8Array([0x61, 0xc3, 0x28, 0x62]))
    expect(await call(ctx, 'artifact_head', { id })).toContain('not valid UTF-8')
  })
})

describe('unknown ids and durability', () => {
  it('every reader answers E_ARTIFACT_NOT_FOUND for an unknown id', async () => {
    const ctx = createTurnContext()
    for (const tool of forgeArtifactReaders()) {
      const args =
        tool.name === 'artifact_grep'
          ? { id: 'r_0123456789abcdef', pattern: 'x' }
          : { id: 'r_0123456789abcdef' }
      await rejectsWith(tool.execute(args, ctx), 'E_ARTIFACT_NOT_FOUND')
    }
  })

  it('readers read from ctx.spool, so any turn sharing the spool can read a result', async () => {
    const spool = new MemorySpoolStore()
    const first = createTurnContext({ spool })
    const artifact = await SpooledArtifact.spool(first.spool, 'kept\n')
    const later = createTurnContext({ spool })
    expect(await call(later, 'artifact_head', { id: artifact.id })).toContain('kept')
    await rejectsWith(
      call(createTurnContext(), 'artifact_head', { id: artifact.id }),
      'E_ARTIFACT_NOT_FOUND',
    )
  })

  it('a deleted artifact reads as not found', async () => {
    const { ctx, id } = await setup('x')
    await ctx.spool.delete(id)
    await rejectsWith(call(ctx, 'artifact_cat', { id }), 'E_ARTIFACT_NOT_FOUND')
  })
})
