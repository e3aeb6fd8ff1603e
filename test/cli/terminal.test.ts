import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/cli-main.js'
import { helpWidth, renderHelp } from '../../src/cli/shared/help-text.js'
import { plural } from '../../src/cli/shared/plural.js'
import { textWidth } from '../../src/cli/shared/text-width.js'
import { wrapText } from '../../src/cli/shared/wrap-text.js'
import { runCli } from '../helpers/run-cli.js'

const examples = fileURLToPath(new URL('../../examples/skills', import.meta.url))

/** `main` in-process; stdout a terminal of `columns` when given, else a pipe. */
const cli = runCli

/** The lines of `text` wider than `width` columns (wide characters count 2). */
const over = (text: string, width: number): string[] =>
  text.split('\n').filter((line) => textWidth(line) > width)

describe('80 columns (issue 26.5)', () => {
  const helps: string[][] = [['--help'], ...[...COMMANDS.keys()].map((name) => [name, '--help'])]

  it.each(helps)(
    'skillhost %s %s fits 80 columns, piped or on an 80-column terminal',
    async (...argv) => {
      for (const columns of [undefined, 80, 200]) {
        const r = await cli(argv, columns)
        expect(r.code).toBe(0)
        expect(over(r.stdout, 80), `${argv.join(' ')} at ${columns}`).toEqual([])
      }
      // A narrower terminal gets a narrower text.
      const narrow = await cli(argv, 60)
      expect(over(narrow.stdout, 60), `${argv.join(' ')} at 60`).toEqual([])
    },
  )

  it.each([...COMMANDS.keys()])(
    '%s --help: every flag in the usage line is among the options',
    async (name) => {
      const { stdout } = await cli([name, '--help'])
      const usage = stdout.slice(0, stdout.indexOf('\n\n'))
      const options = stdout.slice(stdout.indexOf('Options:'))
      for (const flag of new Set(usage.match(/--[a-z][a-z-]*/g) ?? []))
        expect(options, `${name}: ${flag}`).toMatch(new RegExp(`^  (-h, )?${flag}\\b`, 'm'))
    },
  )

  it('option descriptions start in one column and wrap under it', async () => {
    const { stdout } = await cli(['run', '--help'])
    const lines = stdout.split('\n')
    const overlays = lines.findIndex((l) => l.startsWith('  --overlays DIR'))
    const column = lines[overlays]!.indexOf('deployer')
    expect(column).toBeGreaterThan(16)
    // The 130-character --overlays line of old, wrapped with a hanging indent.
    expect(lines[overlays + 1]!.slice(0, column).trim()).toBe('')
    expect(lines[overlays + 1]![column]).not.toBe(' ')
    const timeout = lines.find((l) => l.startsWith('  --timeout N'))!
    expect(timeout.indexOf('seconds')).toBe(column)
  })

  it('list over the examples: one row per skill within 80 columns, descriptions readable, notes wrapped', async () => {
    for (const columns of [undefined, 80]) {
      const r = await cli(['list', examples], columns)
      expect(r.code).toBe(0)
      expect(over(r.stdout, 80)).toEqual([])
      const lines = r.stdout.split('\n')
      const rows = lines.slice(
        1,
        lines.findIndex((l) => l.startsWith('TOOLS:')),
      )
      expect(rows).toHaveLength(5)
      for (const row of rows) {
        // The description is the rest of the row after the TOOLS cell: at least 30 columns of it.
        const description = row.replace(/^(\S+\s+){2,3}(-|[\dmisu ]+?)\s{2,}/, '')
        expect(textWidth(description), row).toBeGreaterThanOrEqual(30)
      }
      // Warnings and notes break between words, continued under an indent.
      const warning = lines.findIndex((l) => l.startsWith('warning unit-convert:'))
      expect(lines[warning + 1]).toMatch(/^ {2}\S/)
      expect(r.stdout).toContain('5 skills, 0 shadowed')
      expect(r.stdout).toMatch(/active \(1 warning\)/)
    }
  })

  it('the help width is the terminal’s up to 80, and 80 when not a terminal', () => {
    expect(helpWidth(undefined)).toBe(80)
    expect(helpWidth(200)).toBe(80)
    expect(helpWidth(72)).toBe(72)
    const text = renderHelp(
      {
        usage: ['skillhost x [--a] [--bb CC] [--ddd EEE FFF]'],
        blocks: [
          'word '.repeat(30),
          { title: 'Options:', items: [{ term: '--a', text: 'x '.repeat(40) }] },
        ],
      },
      40,
    )
    expect(over(text, 40)).toEqual([])
    // Continued under the first argument, a bracketed group never split.
    expect(text).toMatch(/^ {19}\[--ddd EEE FFF\]$/m)
  })
})

describe('wrapText and plural (issue 26.6)', () => {
  it('breaks at spaces, keeps a word wider than the line whole, counts wide characters as 2', () => {
    expect(wrapText('aa bb cc', 5)).toEqual(['aa bb', 'cc'])
    expect(wrapText('a verylongword b', 6, '', '  ')).toEqual(['a', '  verylongword', '  b'])
    expect(wrapText('漢字 漢字 漢字', 10)).toEqual(['漢字 漢字', '漢字'])
    expect(wrapText('', 10, '  ')).toEqual([''])
  })

  it('one skill, two skills, no skills', () => {
    expect(plural(1, 'skill')).toBe('1 skill')
    expect(plural(2, 'skill')).toBe('2 skills')
    expect(plural(0, 'warning')).toBe('0 warnings')
    expect(plural(2, 'entry', 'entries')).toBe('2 entries')
  })
})
