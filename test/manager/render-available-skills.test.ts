import { describe, expect, it } from 'vitest'
import { renderAvailableSkills } from '../../src/manager/render-available-skills.js'

// The one <available_skills> renderer, shared by `skillhost prompt` and the
// AI SDK adapter: the agentskills.io integration format.
describe('renderAvailableSkills', () => {
  it('renders the spec format, escaped, with a location only when given, by name', () => {
    const out = renderAvailableSkills([
      { name: 'pdf', description: 'Fill <forms> & "merge"', location: '/s/pdf/SKILL.md' },
      { name: 'csv', description: 'Tables.' },
    ]).text
    expect(out).toBe(
      [
        '<available_skills>',
        '<skill>',
        '<name>csv</name>',
        '<description>Tables.</description>',
        '</skill>',
        '<skill>',
        '<name>pdf</name>',
        '<description>Fill &lt;forms&gt; &amp; &quot;merge&quot;</description>',
        '<location>/s/pdf/SKILL.md</location>',
        '</skill>',
        '</available_skills>',
      ].join('\n'),
    )
  })

  it('counts skills not given (total), named only and dropped to fit in one closing line', () => {
    const skills = Array.from({ length: 20 }, (_, i) => ({
      name: `s${i}`,
      description: 'd'.repeat(400),
    }))
    const out = renderAvailableSkills(skills, { total: 25, maxTokens: 600 })
    expect(out.namesOnly).toBeGreaterThan(0)
    expect(out.estimatedTokens).toBeLessThanOrEqual(600)
    expect(out.notShown).toBe(5 + out.dropped)
    expect(out.text).toContain(
      `<more_skills total="25" not_shown="${5 + out.dropped}" names_only="${out.namesOnly}">`,
    )
    const whole = renderAvailableSkills(skills.slice(0, 2), { total: 2 })
    expect(whole.text).not.toContain('<more_skills')
  })
})
