import { describe, expect, it } from 'vitest'
import { validateSkillManifest } from '../../src/manifest/validate-skill-manifest.js'

const base = { name: 'pdf-tools', description: 'Work with PDFs.' }

describe('validateSkillManifest', () => {
  it('accepts a valid manifest and carries optional fields', () => {
    const v = validateSkillManifest(
      {
        ...base,
        license: 'MIT',
        compatibility: 'node 20',
        metadata: { a: 'b' },
        'allowed-tools': ['Read', 'Bash'],
      },
      { folderName: 'pdf-tools', strict: true },
    )
    expect(v.ok).toBe(true)
    expect(v.errors).toEqual([])
    expect(v.manifest).toMatchObject({
      name: 'pdf-tools',
      license: 'MIT',
      allowedTools: 'Read Bash',
      metadata: { a: 'b' },
    })
  })

  it.each([
    ['uppercase', 'Pdf-tools'],
    ['unicode', 'pdf-tööls'],
    ['double hyphen', 'pdf--tools'],
    ['leading hyphen', '-pdf'],
    ['trailing hyphen', 'pdf-'],
    ['65 characters', 'a'.repeat(65)],
  ])('warns on a name with %s (lenient) and fails it (strict)', (_label, name) => {
    const lenient = validateSkillManifest({ ...base, name })
    expect(lenient.ok).toBe(true)
    expect(lenient.warnings.length).toBeGreaterThan(0)
    expect(lenient.manifest?.name).toBe(name)
    const strict = validateSkillManifest({ ...base, name }, { strict: true })
    expect(strict.ok).toBe(false)
    expect(strict.manifest).toBeUndefined()
    expect(strict.errors.length).toBeGreaterThan(0)
  })

  it('accepts a 64-character name', () => {
    expect(validateSkillManifest({ ...base, name: 'a'.repeat(64) }, { strict: true }).ok).toBe(true)
  })

  it('warns and loads on a name/folder mismatch; strict fails', () => {
    const lenient = validateSkillManifest(base, { folderName: 'other' })
    expect(lenient.ok).toBe(true)
    expect(lenient.warnings.join()).toMatch(/does not match its folder "other"/)
    expect(validateSkillManifest(base, { folderName: 'other', strict: true }).ok).toBe(false)
  })

  it('always fails a missing or empty name or description', () => {
    for (const fm of [
      { description: 'x' },
      { name: 'a' },
      { name: 'a', description: '' },
      { name: '', description: 'x' },
      { name: 3, description: 'x' },
    ]) {
      const v = validateSkillManifest(fm)
      expect(v.ok).toBe(false)
      expect(v.manifest).toBeUndefined()
    }
  })

  it('limits description to 1024 characters', () => {
    expect(
      validateSkillManifest({ ...base, description: 'x'.repeat(1024) }, { strict: true }).ok,
    ).toBe(true)
    const long = { ...base, description: 'x'.repeat(1025) }
    expect(validateSkillManifest(long).warnings.join()).toMatch(/1025 characters/)
    expect(validateSkillManifest(long, { strict: true }).ok).toBe(false)
  })

  it('limits compatibility to 500 characters', () => {
    const long = { ...base, compatibility: 'x'.repeat(501) }
    expect(validateSkillManifest(long).ok).toBe(true)
    expect(validateSkillManifest(long, { strict: true }).ok).toBe(false)
  })

  it('handles metadata with non-string values', () => {
    const fm = { ...base, metadata: { a: 'x', n: 3, b: true, deep: { x: 1 } } }
    const lenient = validateSkillManifest(fm)
    expect(lenient.ok).toBe(true)
    expect(lenient.manifest?.metadata).toEqual({ a: 'x', n: '3', b: 'true' })
    expect(lenient.warnings).toHaveLength(3)
    expect(validateSkillManifest(fm, { strict: true }).ok).toBe(false)
    expect(validateSkillManifest({ ...base, metadata: ['x'] }).warnings.join()).toMatch(
      /metadata must be a mapping/,
    )
  })

  it('carries unknown keys and reports them only in strict mode', () => {
    const fm = { ...base, author: 'me', tags: ['a'], version: '1.2.0' }
    const lenient = validateSkillManifest(fm)
    expect(lenient.warnings).toEqual([])
    expect(lenient.manifest?.extra).toEqual({ author: 'me', tags: ['a'], version: '1.2.0' })
    expect(lenient.manifest?.version).toBe('1.2.0')
    const strict = validateSkillManifest(fm, { strict: true })
    expect(strict.ok).toBe(false)
    expect(strict.errors.join()).toMatch(/unexpected frontmatter keys: author, tags, version/)
  })

  it('names at most 20 unknown keys in strict mode and counts the rest', () => {
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]))
    const strict = validateSkillManifest({ ...base, ...many }, { strict: true })
    const message = strict.errors.find((e) => e.startsWith('unexpected frontmatter keys'))
    expect(message).toMatch(/^unexpected frontmatter keys: k0, k1, .*k19 and 9980 more \(allowed: /)
    expect(message).not.toContain('k20,')
    expect(message?.length).toBeLessThan(1_000)
  })
})
