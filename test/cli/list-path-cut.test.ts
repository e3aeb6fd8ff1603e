import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cutPathToWidth } from '../../src/cli/list/list-table.js'
import { textWidth } from '../../src/cli/shared/text-width.js'
import { runCli } from '../helpers/run-cli.js'

// Issue 40.13: list cut PATH from the left, mid-name ("…amples/skills/form-fill").
// Whole folder names now leave from the middle; the skill folder's name stays.
describe('cutPathToWidth', () => {
  const path = 'examples/skills/team/form-fill'
  it('leaves whole names out of the middle, keeping as much of the start as fits', () => {
    expect(cutPathToWidth(path, 40)).toBe(path)
    expect(cutPathToWidth(path, 29)).toBe('examples/skills/…/form-fill')
    expect(cutPathToWidth(path, 26)).toBe('examples/…/form-fill')
    expect(cutPathToWidth(path, 19)).toBe('…/form-fill')
    expect(cutPathToWidth('/abs/olute/form-fill', 14)).toBe('/…/form-fill')
  })

  it('cuts the last name itself only when it alone is too wide, and never past the width', () => {
    expect(cutPathToWidth(path, 10)).toBe('…form-fill')
    expect(cutPathToWidth(path, 9)).toBe('…orm-fill')
    expect(cutPathToWidth(path, 6)).toBe('…-fill')
    expect(cutPathToWidth(path, 1)).toBe('…')
    for (let width = 1; width <= 32; width++)
      expect(textWidth(cutPathToWidth(path, width))).toBeLessThanOrEqual(width)
  })
})

describe('skillhost list at 100 columns', () => {
  it('shows each skill folder whole in PATH, cut only between names', async () => {
    const root = fileURLToPath(new URL('../../examples/skills', import.meta.url))
    const r = await runCli(['list', root], 100)
    expect(r.code).toBe(0)
    const rows = r.stdout.split('\n').slice(1, 6)
    for (const id of ['commit-messages', 'form-fill', 'json-tools', 'unit-convert', 'word-count']) {
      const row = rows.find((line) => line.startsWith(`${id} `))
      expect(row).toMatch(new RegExp(`(^|[ /])(…/)?[^ ]*/${id} `))
    }
    // A … in PATH is always followed by a / (a description's ends its line).
    expect(r.stdout).not.toMatch(/…[^/\s]/)
  })
})
