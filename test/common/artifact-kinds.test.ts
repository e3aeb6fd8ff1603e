import { describe, expect, it } from 'vitest'
import { splitLines } from '../../src/common/artifacts/artifact-text.js'
import { describeArtifactHandle } from '../../src/common/artifacts/describe-artifact-handle.js'
import { isReservedReaderName } from '../../src/common/artifacts/forge-artifact-readers.js'
import { parseJsonPath } from '../../src/common/artifacts/json-path.js'
import { parseMarkdownOutline } from '../../src/common/artifacts/markdown-outline.js'
import {
  ARTIFACT_READ_LIMITS,
  artifactKindOf,
  BUILTIN_ARTIFACT_KINDS,
  createTurnContext,
  forgeArtifactReaders,
  isArtifactClass,
  JsonArtifact,
  MarkdownArtifact,
  RESERVED_READER_NAMES,
  SpooledArtifact,
  Tool,
  type TurnContext,
} from '../../src/common/index.js'
import { rejectsWith } from '../helpers/error-code.js'

const all = new Map(forgeArtifactReaders(BUILTIN_ARTIFACT_KINDS).map((t) => [t.name, t] as const))
const call = (ctx: TurnContext, name: string, args: unknown) =>
  (all.get(name) as Tool).execute(args, ctx) as Promise<string>

const DOC = `---
title: x
---
# Guide

Intro text.

## Install

\`\`\`sh
# not a heading
\`\`\`

### Linux

apt-get install thing

## Usage

Use it.

Options
-------

--fast

# Appendix

The end.
`

describe('markdown outline', () => {
  it('parses ATX and setext headings, skipping code fences and frontmatter', () => {
    const outline = parseMarkdownOutline(splitLines(DOC))
    expect(outline.map((h) => [h.index, h.level, h.title, h.line])).toEqual([
      [1, 1, 'Guide', 4],
      [2, 2, 'Install', 8],
      [3, 3, 'Linux', 14],
      [4, 2, 'Usage', 18],
      [5, 2, 'Options', 22],
      [6, 1, 'Appendix', 27],
    ])
    expect(outline[0]?.endLine).toBe(26)
    expect(outline[1]?.endLine).toBe(17)
    expect(outline[2]?.path).toEqual(['Guide', 'Install', 'Linux'])
    expect(outline[5]?.endLine).toBe(29)
  })

  it('reads ATX closing runs and blank padding the CommonMark way', () => {
    const lines = [
      '# Title ##',
      '## a#b',
      '### ###',
      '#### spaced   \t',
      '#nospace',
      '####### seven',
    ]
    expect(parseMarkdownOutline(lines).map((h) => [h.level, h.title])).toEqual([
      [1, 'Title'],
      [2, 'a#b'],
      [3, ''],
      [4, 'spaced'],
    ])
  })

  it('stays linear on headings padded with blanks (a backtracking regex took minutes)', () => {
    // About 1 MiB of skill-controlled body: the old pattern was quadratic per line.
    const pad = ' '.repeat(200_000)
    const lines = [
      `#${pad}x`,
      `#${pad}#${pad}x`,
      `## ${pad}`,
      `###${'\t'.repeat(200_000)}# y`,
      `# end${pad}##`,
    ]
    const outline = parseMarkdownOutline(lines)
    expect(outline.map((h) => [h.level, h.title])).toEqual([
      [1, 'x'],
      [1, `#${pad}x`],
      [2, ''],
      [3, '# y'],
      [1, 'end'],
    ])
  })

  it('artifact_md_outline lists the tree with line ranges', async () => {
    const ctx = createTurnContext()
    const md = await MarkdownArtifact.spool(ctx.spool, DOC)
    expect(md.kind).toBe('markdown')
    expect(md.mimeType).toBe('text/markdown')
    const out = await call(ctx, 'artifact_md_outline', { id: md.id })
    expect(out).toContain('6 headings')
    expect(out).toContain('1. # Guide (lines 4-26)')
    expect(out).toContain('    3. ### Linux (lines 14-17)')
    expect(out).not.toContain('not a heading')
  })

  it('cuts a long title between characters, never inside a surrogate pair', async () => {
    // Found by test/fuzz: a cut at 200 UTF-16 units left half an emoji in the outline.
    const ctx = createTurnContext()
    const md = await MarkdownArtifact.spool(ctx.spool, `# x${'😀'.repeat(150)}\n`)
    const out = await call(ctx, 'artifact_md_outline', { id: md.id })
    expect(out).toContain(`1. # x${'😀'.repeat(99)}… (lines 1-1)`)
    expect(/\p{Cs}/u.test(out)).toBe(false)
  })
})

describe('artifact_md_section', () => {
  it('reads a section by heading path, by a trailing path and by index', async () => {
    const ctx = createTurnContext()
    const md = await MarkdownArtifact.spool(ctx.spool, DOC)
    const byPath = await call(ctx, 'artifact_md_section', { id: md.id, heading: 'Guide > Install' })
    expect(byPath).toContain('## Install')
    expect(byPath).toContain('apt-get install thing')
    expect(byPath).not.toContain('Use it.')
    const byTail = await call(ctx, 'artifact_md_section', { id: md.id, heading: 'linux' })
    expect(byTail).toContain('apt-get install thing')
    expect(byTail).not.toContain('## Install')
    const byIndex = await call(ctx, 'artifact_md_section', { id: md.id, index: 6 })
    expect(byIndex).toContain('The end.')
  })

  it('caps a long section and says how to continue', async () => {
    const ctx = createTurnContext()
    const body = Array.from({ length: 3000 }, (_, i) => `row ${i}`).join('\n')
    const md = await MarkdownArtifact.spool(ctx.spool, `# Big\n${body}\n# Next\n`)
    const out = await call(ctx, 'artifact_md_section', { id: md.id, index: 1 })
    expect(out).toContain('section truncated')
    expect(out).toContain('"endLine":3001')
    expect(out).not.toContain('# Next')
  })

  it('keeps a huge heading out of the header, so the byte cap holds', async () => {
    // Found by test/fuzz: the header repeated every title of the path in full.
    const ctx = createTurnContext()
    const md = await MarkdownArtifact.spool(ctx.spool, `# ${'t'.repeat(10_000)}\nbody\n`)
    const out = await call(ctx, 'artifact_md_section', { id: md.id, index: 1 })
    expect(out).toContain(`section 1 "${'t'.repeat(200)}…" lines 1-2 of 1-2]`)
    expect(new TextEncoder().encode(out).byteLength).toBeLessThan(
      ARTIFACT_READ_LIMITS.maxBytes + 2_000,
    )
  })

  it('rejects a missing, unknown, ambiguous or out-of-range selector', async () => {
    const ctx = createTurnContext()
    const md = await MarkdownArtifact.spool(ctx.spool, '# A\n## Same\nx\n# B\n## Same\ny\n')
    await rejectsWith(call(ctx, 'artifact_md_section', { id: md.id }), 'E_ARTIFACT_READ_INVALID')
    await rejectsWith(
      call(ctx, 'artifact_md_section', { id: md.id, heading: 'A', index: 1 }),
      'E_ARTIFACT_READ_INVALID',
    )
    const unknown = await rejectsWith(
      call(ctx, 'artifact_md_section', { id: md.id, heading: 'Nope' }),
      'E_ARTIFACT_READ_INVALID',
    )
    expect(unknown.message).toContain('A > Same')
    const ambiguous = await rejectsWith(
      call(ctx, 'artifact_md_section', { id: md.id, heading: 'Same' }),
      'E_ARTIFACT_READ_INVALID',
    )
    expect(ambiguous.message).toContain('2 sections')
    expect(await call(ctx, 'artifact_md_section', { id: md.id, heading: 'B > Same' })).toContain(
      'y',
    )
    await rejectsWith(
      call(ctx, 'artifact_md_section', { id: md.id, index: 9 }),
      'E_ARTIFACT_READ_INVALID',
    )
  })
})

describe('artifact_json_query', () => {
  const data = {
    a: { b: [{ c: 1 }, { c: 'two', 'odd key': true }] },
    list: [1, 2, 3],
    ['__proto__']: { x: 1 },
  }

  it('resolves paths to values', async () => {
    const ctx = createTurnContext()
    const json = await JsonArtifact.spool(ctx.spool, JSON.stringify(data))
    expect(json.kind).toBe('json')
    expect(await call(ctx, 'artifact_json_query', { id: json.id, path: 'a.b[0].c' })).toContain(
      '\n1',
    )
    expect(
      await call(ctx, 'artifact_json_query', { id: json.id, path: '$.a.b[1]["odd key"]' }),
    ).toContain('true')
    expect(await call(ctx, 'artifact_json_query', { id: json.id, path: 'list[-1]' })).toContain(
      '\n3',
    )
    const root = await call(ctx, 'artifact_json_query', { id: json.id })
    expect(root).toContain('an object with')
    expect(await call(ctx, 'artifact_json_query', { id: json.id, path: 'a.b' })).toContain(
      'an array of 2 items',
    )
  })

  it('looks up own keys only: __proto__ and constructor are data, not the prototype', async () => {
    const ctx = createTurnContext()
    const json = await JsonArtifact.spool(ctx.spool, '{"__proto__":{"x":1},"y":2}')
    expect(await call(ctx, 'artifact_json_query', { id: json.id, path: '__proto__.x' })).toContain(
      '\n1',
    )
    await rejectsWith(
      call(ctx, 'artifact_json_query', { id: json.id, path: 'constructor' }),
      'E_ARTIFACT_READ_INVALID',
    )
    await rejectsWith(
      call(ctx, 'artifact_json_query', { id: json.id, path: 'y.toString' }),
      'E_ARTIFACT_READ_INVALID',
    )
  })

  it('rejects bad syntax, missing keys and out-of-range indexes, and never evaluates', async () => {
    const ctx = createTurnContext()
    const json = await JsonArtifact.spool(ctx.spool, JSON.stringify(data))
    for (const path of [
      'a..b',
      'a[',
      'a[x]',
      'list[3]',
      'a.nope',
      'list.a',
      'a[0]',
      'process.exit()',
      'a'.repeat(600),
    ]) {
      await rejectsWith(
        call(ctx, 'artifact_json_query', { id: json.id, path }),
        'E_ARTIFACT_READ_INVALID',
      )
    }
    const missing = await rejectsWith(
      call(ctx, 'artifact_json_query', { id: json.id, path: 'a.nope' }),
      'E_ARTIFACT_READ_INVALID',
    )
    expect(missing.message).toContain('"b"')
    expect(parseJsonPath("$['k\\'s']")).toEqual([{ key: "k's" }])
  })

  it('caps a large value and reports the cut', async () => {
    const ctx = createTurnContext()
    const json = await JsonArtifact.spool(
      ctx.spool,
      JSON.stringify({ big: Array.from({ length: 5000 }, (_, i) => ({ i })) }),
    )
    const out = await call(ctx, 'artifact_json_query', { id: json.id, path: 'big' })
    expect(out).toContain('truncated')
    expect(new TextEncoder().encode(out).byteLength).toBeLessThan(17_000)
  })

  it('reports content that is not JSON', async () => {
    const ctx = createTurnContext()
    const json = await JsonArtifact.spool(ctx.spool, '{not json')
    await rejectsWith(call(ctx, 'artifact_json_query', { id: json.id }), 'E_ARTIFACT_READ_INVALID')
  })
})

describe('kind checks', () => {
  it('kind-specific readers refuse another kind with a clear error', async () => {
    const ctx = createTurnContext()
    const text = await SpooledArtifact.spool(ctx.spool, '# looks like md\n')
    const md = await MarkdownArtifact.spool(ctx.spool, '# md\n')
    const outline = await rejectsWith(
      call(ctx, 'artifact_md_outline', { id: text.id }),
      'E_ARTIFACT_READ_INVALID',
    )
    expect(outline.message).toContain("kind 'text'")
    expect(outline.message).toContain('artifact_md_outline')
    await rejectsWith(
      call(ctx, 'artifact_md_section', { id: text.id, index: 1 }),
      'E_ARTIFACT_READ_INVALID',
    )
    await rejectsWith(call(ctx, 'artifact_json_query', { id: md.id }), 'E_ARTIFACT_READ_INVALID')
    await rejectsWith(
      call(ctx, 'artifact_md_outline', { id: 'r_0123456789abcdef' }),
      'E_ARTIFACT_NOT_FOUND',
    )
    // The base readers read every kind.
    expect(await call(ctx, 'artifact_head', { id: md.id })).toContain('# md')
  })

  it('a markdown MIME type is readable as markdown whatever the kind', async () => {
    const ctx = createTurnContext()
    const text = await SpooledArtifact.spool(ctx.spool, '# T\n', {
      mimeType: 'text/markdown; charset=utf-8',
    })
    expect(await call(ctx, 'artifact_md_outline', { id: text.id })).toContain('1. # T')
  })
})

class ReportArtifact extends MarkdownArtifact {
  static override readonly kind = 'report'
  static readonly extra = new Tool<{ id: string }>({
    name: 'artifact_report_summary',
    description: 'First heading of a report.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    handler: async ({ id }, ctx) => {
      const report = await ReportArtifact.open(ctx.spool, id, 'artifact_report_summary')
      const outline = await report.outline()
      return Array.isArray(outline) ? (outline[0]?.title ?? '') : ''
    },
  })
  static override readers(): readonly Tool[] {
    return [...MarkdownArtifact.readers(), ReportArtifact.extra]
  }
}

describe('host-defined kinds and forging', () => {
  it('a subclass spools as its own kind and keeps the parent readers', async () => {
    const ctx = createTurnContext()
    const report = await ReportArtifact.spool(ctx.spool, '# Q3\nnumbers\n')
    expect(report).toBeInstanceOf(ReportArtifact)
    expect(report.retrievable.kind).toBe('report')
    expect(report.mimeType).toBe('text/markdown')
    const tools = new Map(forgeArtifactReaders([ReportArtifact]).map((t) => [t.name, t] as const))
    expect(
      await (tools.get('artifact_report_summary') as Tool).execute({ id: report.id }, ctx),
    ).toBe('Q3')
    expect(
      await (tools.get('artifact_md_outline') as Tool).execute({ id: report.id }, ctx),
    ).toContain('Q3')
    const text = await SpooledArtifact.spool(ctx.spool, '# no\n')
    await rejectsWith(
      (tools.get('artifact_report_summary') as Tool).execute({ id: text.id }, ctx),
      'E_ARTIFACT_READ_INVALID',
    )
  })

  it('forges the base readers by default and each shared tool once', () => {
    expect(forgeArtifactReaders().map((t) => t.name)).toEqual([
      'artifact_head',
      'artifact_tail',
      'artifact_grep',
      'artifact_cat',
      'artifact_stat',
    ])
    const both = forgeArtifactReaders([MarkdownArtifact, ReportArtifact, MarkdownArtifact])
    expect(both.map((t) => t.name).filter((n) => n === 'artifact_md_outline')).toHaveLength(1)
    expect(forgeArtifactReaders()[0]).toBe(forgeArtifactReaders()[0])
    for (const tool of both) expect(tool.trusted).toBe(false)
  })

  it('rejects bad kinds and bad readers with E_INVALID_SKILLS_CONFIG', () => {
    const bad = (fn: () => unknown) =>
      expect(fn).toThrow(expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }))
    bad(() => forgeArtifactReaders([class {} as never]))
    class Misnamed extends SpooledArtifact {
      static override readonly kind = 'misnamed'
      static override readers() {
        return [new Tool({ name: 'steal', description: '', inputSchema: {}, handler: () => '' })]
      }
    }
    bad(() => forgeArtifactReaders([Misnamed]))
    class Clash extends SpooledArtifact {
      static override readonly kind = 'clash'
      static override readers() {
        return [
          new Tool({ name: 'artifact_head', description: '', inputSchema: {}, handler: () => '' }),
        ]
      }
    }
    bad(() => forgeArtifactReaders([Clash]))
  })

  it('RESERVED_READER_NAMES lists every built-in reader and is frozen', () => {
    expect(Object.isFrozen(RESERVED_READER_NAMES)).toBe(true)
    expect([...RESERVED_READER_NAMES].sort()).toEqual([...all.keys()].sort())
    expect(RESERVED_READER_NAMES).toContain('artifact_md_section')
    expect(RESERVED_READER_NAMES).toContain('artifact_json_query')
    expect(isReservedReaderName('artifact_head')).toBe(true)
    expect(isReservedReaderName('artifact_future')).toBe(true)
    expect(isReservedReaderName('head')).toBe(false)
  })

  it('isArtifactClass accepts artifact classes (across package copies) and nothing else', () => {
    expect(isArtifactClass(SpooledArtifact)).toBe(true)
    expect(isArtifactClass(MarkdownArtifact)).toBe(true)
    expect(isArtifactClass(ReportArtifact)).toBe(true)
    const foreign = Object.assign(function Foreign() {}, {
      kind: 'foreign',
      accepts: () => true,
      readers: () => [],
      [Symbol.for('skillhost.artifact-class')]: true,
    })
    expect(isArtifactClass(foreign)).toBe(true)
    expect(isArtifactClass(class {})).toBe(false)
    expect(isArtifactClass(() => ReportArtifact)).toBe(false)
    expect(isArtifactClass(new ReportArtifact(createTurnContext().spool, {} as never))).toBe(false)
    expect(isArtifactClass({ kind: 'x' })).toBe(false)
    class BadKind extends SpooledArtifact {
      static override readonly kind = 'Bad Kind'
    }
    expect(isArtifactClass(BadKind)).toBe(false)
    expect(artifactKindOf(ReportArtifact)).toBe('report')
    expect(() => artifactKindOf({})).toThrow(TypeError)
  })
})

describe('describeArtifactHandle', () => {
  it('gives id, kind, size, outline and readers for markdown', async () => {
    const ctx = createTurnContext()
    const md = await MarkdownArtifact.spool(ctx.spool, DOC, {
      title: 'guide (SKILL.md)',
      provenance: { skill: 'guide' },
    })
    const outline = await md.outline()
    const text = describeArtifactHandle(md, Array.isArray(outline) ? outline : undefined)
    expect(text).toContain(md.id)
    expect(text).toContain('markdown')
    expect(text).toContain(`${md.size} bytes`)
    expect(text).toContain('from skill guide')
    expect(text).toContain('2. ## Install (lines 8-17)')
    expect(text).toContain('artifact_md_section')
    expect(text).toContain('artifact_grep')
    expect(describeArtifactHandle(md.retrievable, DOC)).toBe(text)
  })

  it('lists the JSON reader for JSON and no markdown readers for text', async () => {
    const ctx = createTurnContext()
    const json = await JsonArtifact.spool(ctx.spool, '{}')
    expect(describeArtifactHandle(json)).toContain('artifact_json_query')
    const text = await SpooledArtifact.spool(ctx.spool, 'x')
    const described = describeArtifactHandle(text.retrievable)
    expect(described).not.toContain('artifact_md_section')
    expect(described).toContain('artifact_head')
  })
})
