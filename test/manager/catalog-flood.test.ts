import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIST_PAGE_CHARS, forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillManager } from '../../src/manager/types.js'
import { MAX_DESCRIPTION_CHARS } from '../../src/manifest/cap-description.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { writeSkillRoot } from '../helpers/manager-fixtures.js'

const FLOOD = 50
const LONG = 58_000
const wellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text

interface ListPage {
  skills: { id: string; description: string }[]
  total: number
  nextCursor?: string
}

let root = ''
let manager: SkillManager
beforeAll(async () => {
  root = await writeSkillRoot([
    ...Array.from({ length: FLOOD }, (_, i) => ({
      name: `flood-${String(i).padStart(2, '0')}`,
      description: `Skill ${i} ${'spam '.repeat(LONG / 5)}`.slice(0, LONG),
    })),
    { name: 'emoji-even', description: '😀'.repeat(600) },
    { name: 'emoji-odd', description: `x${'😀'.repeat(600)}` },
  ])
  manager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: root })],
    gate: async () => {},
  })
})
afterAll(async () => {
  await manager?.dispose()
  await rm(root, { recursive: true, force: true })
})

/** Calls list_skills until it stops returning a cursor; returns every page's raw text. */
async function pages(
  options: Parameters<typeof forgeSkillTools>[1],
  args: Record<string, unknown> = {},
): Promise<string[]> {
  const ctx = manager.createTurnContext()
  const list = forgeSkillTools(manager, options).find((t) => t.name === 'list_skills')!
  const out: string[] = []
  let cursor: string | undefined
  do {
    const text = String(await list.execute({ ...args, ...(cursor ? { cursor } : {}) }, ctx))
    out.push(text)
    cursor = (JSON.parse(text) as ListPage).nextCursor
  } while (cursor !== undefined && out.length <= 200)
  return out
}

describe('catalog flood (issue 10 item 18)', () => {
  it('caps every catalog description at 1,024 characters; search still sees the whole text', () => {
    const { entries } = manager.search()
    expect(entries).toHaveLength(FLOOD + 2)
    for (const e of entries) {
      expect(e.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS)
      expect(e.description.endsWith('…')).toBe(true)
      expect(wellFormed(e.description)).toBe(true)
    }
    expect(manager.catalog().entries.every((e) => e.description.length <= 1024)).toBe(true)
    // "Skill 7 " then spam: a word far past the cap still matches.
    expect(manager.search({ query: 'skill 7 spam' }).total).toBe(1)
  })

  it('list_skills pages 50 skills of 58,000-character descriptions under the size budget', async () => {
    const texts = await pages({}, { query: 'flood-' })
    expect(texts.length).toBeGreaterThan(1)
    const seen: string[] = []
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(DEFAULT_LIST_PAGE_CHARS)
      const page = JSON.parse(text) as ListPage
      expect(page.total).toBe(FLOOD)
      for (const s of page.skills) {
        expect(s.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS)
        seen.push(s.id)
      }
    }
    // Every skill reachable through the cursor, once each, in order.
    expect(seen).toEqual(
      Array.from({ length: FLOOD }, (_, i) => `flood-${String(i).padStart(2, '0')}`),
    )
    // The whole walk is the size of the capped catalog, not of the raw one (2.9 M characters).
    expect(texts.join('').length).toBeLessThan(FLOOD * 1_500)
  })

  it('a page stops before the entry that would pass the budget, and is never empty', async () => {
    const budget = 5_000
    const texts = await pages({ maxListChars: budget }, { query: 'flood-' })
    const counts = texts.map((t) => (JSON.parse(t) as ListPage).skills.length)
    expect(counts.reduce((a, b) => a + b, 0)).toBe(FLOOD)
    for (const [i, text] of texts.entries()) {
      expect(text.length).toBeLessThanOrEqual(budget)
      // Not a page short: the next page's first entry (plus its indentation) would not have fit.
      const next = texts[i + 1]
      if (next !== undefined) {
        const entry = JSON.stringify((JSON.parse(next) as ListPage).skills[0], null, 2)
        expect(text.length + Math.ceil(entry.length * 1.2)).toBeGreaterThan(budget)
      }
    }
    // A budget smaller than one entry still moves forward, one entry a page.
    const tiny = await pages({ maxListChars: 10 }, { query: 'flood-' })
    expect(tiny).toHaveLength(FLOOD)
    for (const t of tiny) expect((JSON.parse(t) as ListPage).skills).toHaveLength(1)
  })

  it('the count limit still applies under the budget', async () => {
    const texts = await pages({}, { query: 'flood-', limit: 3 })
    expect(texts).toHaveLength(Math.ceil(FLOOD / 3))
    expect((JSON.parse(texts[0]!) as ListPage).nextCursor).toBe('o:3')
  })

  it('an emoji description cut at the boundary stays valid UTF-16', async () => {
    const [text] = await pages({}, { query: 'emoji-' })
    const page = JSON.parse(text!) as ListPage
    expect(page.skills.map((s) => s.id).sort()).toEqual(['emoji-even', 'emoji-odd'])
    for (const s of page.skills) {
      expect(s.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS)
      expect(wellFormed(s.description)).toBe(true)
      expect(s.description.endsWith('😀…')).toBe(true)
    }
  })
})
