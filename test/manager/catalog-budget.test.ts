import { describe, expect, it } from 'vitest'
import { catalogBudgetChars, catalogBudgetProblem } from '../../src/manager/catalog-budget.js'
import { renderAvailableSkills } from '../../src/manager/render-available-skills.js'
import { matchesIdPattern } from '../../src/manager/skill-id-patterns.js'

/** `n` skills with ids like `tool-00042` and descriptions of `length` characters. */
const many = (n: number, length = 300) =>
  Array.from({ length: n }, (_, i) => ({
    name: `tool-${String(i).padStart(5, '0')}`,
    description: `Skill ${i}: ${'does a thing well. '.repeat(40)}`.slice(0, length),
  }))

/** Every name the block shows, described or by name only. */
function shownNames(text: string): string[] {
  const described = [...text.matchAll(/<name>([^<]*)<\/name>/g)].map((m) => m[1]!)
  const list = /<skill_names>\n([\s\S]*?)\n<\/skill_names>/.exec(text)?.[1]
  return [...described, ...(list ? list.split('\n') : [])]
}

/** A deterministic shuffle (no Math.random in tests that compare bytes). */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items]
  let seed = 7
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const j = seed % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

describe('a budget as a share of the window (issue 38 item 1)', () => {
  it('window × share × 4 characters; 1 % by default; the smaller of window and maxTokens', () => {
    expect(catalogBudgetChars({ window: 200_000 })).toBe(8_000)
    expect(catalogBudgetChars({ window: 200_000, share: 0.02 })).toBe(16_000)
    expect(catalogBudgetChars({ window: 100, share: 0.29 })).toBe(116)
    expect(catalogBudgetChars({ maxTokens: 500 })).toBe(2_000)
    expect(catalogBudgetChars({ window: 200_000, maxTokens: 500 })).toBe(2_000)
    expect(catalogBudgetChars({})).toBeUndefined()
  })

  it.each([
    [{ window: 0 }, 'window'],
    [{ window: 1.5 }, 'window'],
    [{ window: Number.POSITIVE_INFINITY }, 'window'],
    [{ window: 1000, share: 0 }, 'share'],
    [{ window: 1000, share: 1.5 }, 'share'],
    [{ window: 1000, share: Number.NaN }, 'share'],
    [{ share: 0.01 }, 'share'],
    [{ maxTokens: -1 }, 'maxTokens'],
  ])('refuses %j (%s)', (budget, field) => {
    expect(catalogBudgetProblem(budget)?.field).toBe(field)
    expect(() => renderAvailableSkills([], budget)).toThrow(
      expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
    )
  })
})

describe('overflow in steps the model can see (issue 38 item 2)', () => {
  it('everything whole when it fits: no closing line', () => {
    const out = renderAvailableSkills(many(5), { window: 200_000 })
    expect(out).toMatchObject({ described: 5, shortened: 0, namesOnly: 0, notShown: 0 })
    expect(out.text).not.toContain('more_skills')
  })

  it('then descriptions shortened evenly: every skill still described', () => {
    const skills = many(30, 400)
    const out = renderAvailableSkills(skills, { window: 200_000 })
    expect(out.text.length).toBeLessThanOrEqual(8_000)
    expect(out).toMatchObject({ described: 30, shortened: 30, namesOnly: 0 })
    const lengths = [...out.text.matchAll(/<description>([^<]*)<\/description>/g)].map(
      (m) => m[1]!.length,
    )
    // Evenly: one common length, and the budget used (within one row of it).
    expect(new Set(lengths).size).toBe(1)
    expect(out.text.length).toBeGreaterThan(8_000 - 30)
  })

  it('then names only, then not shown; the closing line counts both and points to list_skills', () => {
    const skills = many(3_000)
    const out = renderAvailableSkills(skills, { window: 200_000 })
    expect(out.text.length).toBeLessThanOrEqual(8_000)
    expect(out.namesOnly).toBeGreaterThan(200)
    expect(out.notShown).toBe(3_000 - out.described - out.namesOnly)
    expect(out.text).toContain(
      `<more_skills total="3000" not_shown="${out.notShown}" names_only="${out.namesOnly}">3000 skills in all: ${out.notShown} not shown here, ${out.namesOnly} shown by name only. Call list_skills with a query`,
    )
    expect(out.text.endsWith('</more_skills>\n</available_skills>')).toBe(true)
    // No name cut, none twice.
    const names = shownNames(out.text)
    expect(names).toHaveLength(out.described + out.namesOnly)
    expect(new Set(names).size).toBe(names.length)
    const given = new Set(skills.map((s) => s.name))
    for (const name of names) expect(given.has(name)).toBe(true)
  })

  it('a medium catalog keeps the first skills described and names the rest', () => {
    const out = renderAvailableSkills(many(120, 400), { window: 200_000 })
    expect(out.text.length).toBeLessThanOrEqual(8_000)
    expect(out.described).toBeGreaterThan(0)
    expect(out.namesOnly).toBe(120 - out.described)
    expect(out.notShown).toBe(0)
    // The described are the first in rank (by name here).
    expect(shownNames(out.text).slice(0, out.described)).toEqual(
      many(120)
        .slice(0, out.described)
        .map((s) => s.name),
    )
  })

  it('the same skills in any order give the same bytes', () => {
    for (const n of [5, 40, 120, 3_000]) {
      const skills = many(n, 400)
      const a = renderAvailableSkills(skills, { window: 200_000 }).text
      const b = renderAvailableSkills(shuffled(skills), { window: 200_000 }).text
      expect(b).toBe(a)
    }
  })

  it('a larger share shows at least as many skills, and as many described', () => {
    const skills = many(3_000)
    const one = renderAvailableSkills(skills, { window: 200_000 })
    const two = renderAvailableSkills(skills, { window: 200_000, share: 0.02 })
    expect(two.text.length).toBeLessThanOrEqual(16_000)
    expect(two.text.length).toBeGreaterThan(8_000)
    expect(two.described + two.namesOnly).toBeGreaterThanOrEqual(one.described + one.namesOnly)
    expect(two.described).toBeGreaterThanOrEqual(one.described)
  })

  it('the budget holds against text that grows when escaped, long names and duplicates', () => {
    const hostile = Array.from({ length: 400 }, (_, i) => ({
      name: `n${i}&<"'>${'x'.repeat(40)}`,
      description: `&<>"'`.repeat(200),
    }))
    for (const budget of [
      { maxTokens: 300 },
      { window: 200_000 },
      { window: 50_000, share: 0.5 },
    ]) {
      const out = renderAvailableSkills([...hostile, ...hostile], budget)
      expect(out.text.length).toBeLessThanOrEqual(out.budgetChars!)
      expect(out.total).toBe(400)
      expect(out.text).not.toMatch(
        /<(?!\/?(available_skills|skill|name|description|skill_names|more_skills)[ >])/,
      )
    }
  })

  it('a name is never cut, even when a budget fits nothing but the closing line', () => {
    const skills = [{ name: `x${'y'.repeat(63)}`, description: 'A skill.' }, ...many(20)]
    const out = renderAvailableSkills(skills, { maxTokens: 120 })
    for (const name of shownNames(out.text)) expect(skills.some((s) => s.name === name)).toBe(true)
    expect(out.text).toContain('<more_skills total="21"')
  })

  it('a name given twice is shown once; names with line breaks stay on one line', () => {
    const out = renderAvailableSkills([
      { name: 'pdf', description: 'One.' },
      { name: 'pdf', description: 'Two.' },
      { name: 'a\nb', description: 'Odd.' },
    ])
    expect(out.text.match(/<name>pdf<\/name>/g)).toHaveLength(1)
    expect(out.text).toContain('<name>a\\nb</name>')
    expect(out.total).toBe(2)
  })
})

describe('deployer control: pin and hide by id pattern (issue 38 item 3)', () => {
  it('pinned skills rank first and keep their description in a flood', () => {
    const skills = many(3_000)
    const out = renderAvailableSkills(skills, {
      window: 200_000,
      pin: ['tool-02999', 'tool-0150?'],
    })
    const described = [...out.text.matchAll(/<name>([^<]*)<\/name>/g)].map((m) => m[1])
    expect(described.slice(0, 11)).toEqual([
      'tool-01500',
      'tool-01501',
      'tool-01502',
      'tool-01503',
      'tool-01504',
      'tool-01505',
      'tool-01506',
      'tool-01507',
      'tool-01508',
      'tool-01509',
      'tool-02999',
    ])
    expect(out.text.length).toBeLessThanOrEqual(8_000)
  })

  it('hidden skills are neither shown nor counted', () => {
    const out = renderAvailableSkills(many(10), { hide: ['tool-00001', '*7'], maxTokens: 200 })
    expect(out.text).not.toContain('tool-00001')
    expect(out.text).not.toContain('tool-00007')
    expect(out.total).toBe(8)
    expect(out.text).toContain('<more_skills total="8"')
    expect(shownNames(out.text)).toHaveLength(out.described + out.namesOnly)
    const all = renderAvailableSkills(many(10), { hide: ['*'] })
    expect(all.text).toBe('<available_skills>\n</available_skills>')
  })

  it('in a flood, skills used in this session keep a description, within half the budget', () => {
    const skills = many(3_000).map((s, i) => ({ ...s, uses: i % 500 === 7 ? 1 : 0 }))
    const out = renderAvailableSkills(skills, { window: 200_000, pin: ['tool-02000'] })
    const described = [...out.text.matchAll(/<name>([^<]*)<\/name>/g)].map((m) => m[1])
    expect(described).toEqual([
      'tool-02000',
      'tool-00007',
      'tool-00507',
      'tool-01007',
      'tool-01507',
      'tool-02007',
      'tool-02507',
    ])
    expect(out.text.length).toBeLessThanOrEqual(8_000)
    expect(out.namesOnly).toBeGreaterThan(200)
    // Without use, the flood describes the pinned only.
    const unused = renderAvailableSkills(many(3_000), { window: 200_000, pin: ['tool-02000'] })
    expect(unused.described).toBe(1)
  })

  it('use in this session ranks after the pins', () => {
    const skills = many(4).map((s, i) => ({ ...s, uses: i === 3 ? 2 : i === 2 ? 1 : 0 }))
    const out = renderAvailableSkills(skills, { pin: ['tool-00001'] })
    expect(shownNames(out.text)).toEqual(['tool-00001', 'tool-00003', 'tool-00002', 'tool-00000'])
  })

  it('id patterns: * any run, ? one character, everything else itself', () => {
    const cases: [string, string, boolean][] = [
      ['pdf', 'pdf', true],
      ['pdf', 'pdf-x', false],
      ['pdf*', 'pdf-tools', true],
      ['*-tools', 'pdf-tools', true],
      ['*-tools', 'pdf-tool', false],
      ['a?c', 'abc', true],
      ['a?c', 'ac', false],
      ['*', '', true],
      ['a*b*c', 'axxbyyc', true],
      ['a*b*c', 'axxbyy', false],
      ['.*', 'abc', false],
      [`${'*a'.repeat(30)}b`, 'a'.repeat(64), false],
    ]
    for (const [pattern, id, want] of cases)
      expect(matchesIdPattern(pattern, id), `${pattern} ~ ${id}`).toBe(want)
  })

  it('refuses a pattern list that is not a list of strings', () => {
    for (const pin of [['' as string], 'pdf' as unknown as string[], [1 as unknown as string]])
      expect(() => renderAvailableSkills([], { pin })).toThrow(
        expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
      )
  })
})
