import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { promptCommand } from '../../src/cli/prompt/prompt-command.js'
import { UsageError } from '../../src/cli/shared/parse-args.js'
import { writeManySkills, writeSeventeenSkills } from '../helpers/catalog-fixtures.js'

/** Runs `skillhost prompt` in process; the block is stdout without its last line break. */
async function prompt(...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await promptCommand.run(['--no-default-roots', ...args], {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
  })
  return { code, block: out.join('').replace(/\n$/, ''), stderr: err.join('') }
}

/** Every name the block shows, described or by name only. */
function shownNames(text: string): string[] {
  const described = [...text.matchAll(/<name>([^<]*)<\/name>/g)].map((m) => m[1]!)
  const list = /<skill_names>\n([\s\S]*?)\n<\/skill_names>/.exec(text)?.[1]
  return [...described, ...(list ? list.split('\n') : [])]
}

const MANY = 2_500
let seventeen = ''
let many = ''
beforeAll(async () => {
  seventeen = await writeSeventeenSkills()
  many = await writeManySkills(MANY)
}, 120_000)
afterAll(async () => {
  await rm(seventeen, { recursive: true, force: true })
  await rm(many, { recursive: true, force: true })
})

describe('skillhost prompt --window (issue 38)', () => {
  it('17 skills at --window 200000: within 8,000 characters, every skill named, bytes stable', async () => {
    const a = await prompt('--window', '200000', seventeen)
    expect(a.code).toBe(0)
    expect(a.block.length).toBeLessThanOrEqual(8_000)
    const names = shownNames(a.block)
    expect(names).toHaveLength(17)
    expect(new Set(names).size).toBe(17)
    // All described: the collection fits once the longest descriptions are shortened.
    expect(a.block.match(/<description>/g)).toHaveLength(17)
    expect(a.block).not.toContain('<location>')
    expect(a.stderr).toMatch(/to fit 8000 characters, shortened \d+ descriptions?/)
    const b = await prompt('--window', '200000', seventeen)
    expect(b.block).toBe(a.block)
  })

  it('thousands of skills: within 8,000, many named, total and not-shown count, list_skills; --share 0.02 doubles it', async () => {
    const one = await prompt('--window', '200000', many)
    expect(one.code).toBe(0)
    expect(one.block.length).toBeLessThanOrEqual(8_000)
    const names = shownNames(one.block)
    expect(new Set(names).size).toBe(names.length)
    expect(names.length).toBeGreaterThan(300)
    const note = /<more_skills total="(\d+)" not_shown="(\d+)" names_only="(\d+)">/.exec(one.block)
    expect(note?.slice(1).map(Number)).toEqual([
      MANY,
      MANY - names.length,
      names.length - (one.block.match(/<description>/g) ?? []).length,
    ])
    expect(one.block).toContain('Call list_skills with a query')
    expect(one.stderr).toContain('skillhost list shows them all')

    const two = await prompt('--window', '200000', '--share', '0.02', many)
    expect(two.block.length).toBeLessThanOrEqual(16_000)
    expect(two.block.length).toBeGreaterThan(8_000)
    expect(shownNames(two.block).length).toBeGreaterThanOrEqual(names.length)
    expect((await prompt('--window', '200000', many)).block).toBe(one.block)
  }, 120_000)

  it('--pin describes first, --hide leaves out uncounted, --locations adds paths', async () => {
    const out = await prompt(
      '--window',
      '200000',
      '--pin',
      'skill-0249?',
      '--hide',
      'skill-000*',
      many,
    )
    const described = [...out.block.matchAll(/<name>([^<]*)<\/name>/g)].map((m) => m[1])
    expect(described.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `skill-0249${i}`))
    expect(out.block).not.toMatch(/skill-000\d\d/)
    expect(out.block).toContain(`total="${MANY - 100}"`)
    const located = await prompt('--locations', seventeen)
    expect(located.block.match(/<location>[^<]*\/SKILL\.md<\/location>/g)).toHaveLength(17)
  }, 120_000)

  it.each([
    [['--share', '0.02'], '--share needs --window'],
    [['--window', '0'], '--window must be a positive whole number'],
    [['--window', '2e5'], '--window must be a positive whole number'],
    [['--window', '1000', '--share', '2'], '--share must be a number greater than 0 and at most 1'],
    [['--window', '1000', '--share', 'lots'], '--share must be a number'],
    [['--max-tokens', '-3'], '--max-tokens'],
    [['--pin', ''], '--pin must be'],
    [['--hide', 'x'.repeat(513)], '--hide must be'],
  ])('refuses %j', async (flags, message) => {
    await expect(prompt(...flags, seventeen)).rejects.toThrow(UsageError)
    await expect(prompt(...flags, seventeen)).rejects.toThrow(message)
  })
})
