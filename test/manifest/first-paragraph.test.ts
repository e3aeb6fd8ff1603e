import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { firstParagraph } from '../../src/manifest/first-paragraph.js'
import { validateSkillManifest } from '../../src/manifest/validate-skill-manifest.js'
import { fuzzParams } from '../helpers/fuzz-config.js'

describe('firstParagraph: a description for a SKILL.md that gives none, as Claude Code takes it', () => {
  it('passes over headings, fences, comments and rules; joins the paragraph into one line', () => {
    const body = [
      '# Title',
      '<!-- note',
      'still a comment -->',
      '```bash',
      'echo not this',
      '```',
      '---',
      'Fills PDF',
      'forms.',
      '',
      'Second.',
    ].join('\n')
    expect(firstParagraph(body, 1024)).toBe('Fills PDF forms.')
    expect(firstParagraph('# only\n\n```\ncode\n```\n', 1024)).toBe('')
    expect(firstParagraph('abcdef', 4)).toBe('abc…')
  })

  it('any body: one line, within the limit, never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.integer({ min: 2, max: 50 }), (body, max) => {
        const out = firstParagraph(body, max)
        expect(out).not.toMatch(/\n/)
        expect(Array.from(out).length).toBeLessThanOrEqual(max)
      }),
      fuzzParams,
    )
  })

  it('lenient validation falls back with warnings; strict keeps name and description required', () => {
    const lenient = validateSkillManifest({}, { folderName: 'pdf', body: 'Fills forms.' })
    expect(lenient.ok).toBe(true)
    expect(lenient.manifest).toMatchObject({ name: 'pdf', description: 'Fills forms.' })
    expect(lenient.warnings).toHaveLength(2)
    const strict = validateSkillManifest(
      {},
      { folderName: 'pdf', body: 'Fills forms.', strict: true },
    )
    expect(strict.ok).toBe(false)
    expect(strict.errors.join('\n')).toMatch(/name is required[\s\S]*description is required/)
  })
})
