import { describe, expect, it } from 'vitest'
import { decodeSkillHead, decodeSkillText } from '../../src/manifest/decode-skill-text.js'
import { parseSkillMd } from '../../src/manifest/parse-skill-md.js'
import { codeOf, rejectsWith } from '../helpers/error-code.js'

describe('parseSkillMd', () => {
  it('splits frontmatter and body', () => {
    const out = parseSkillMd('---\nname: a\ndescription: b\n---\n# Title\n\ntext\n')
    expect(out.frontmatter).toEqual({ name: 'a', description: 'b' })
    expect(out.body).toBe('# Title\n\ntext\n')
  })

  it('accepts a BOM and CRLF line endings', () => {
    const out = parseSkillMd('\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n')
    expect(out.frontmatter).toEqual({ name: 'a', description: 'b' })
    expect(out.body).toBe('body\n')
  })

  it('accepts blanks after the opening fence, as YAML and skills-ref do (issue 12 item 6)', () => {
    for (const text of [
      '--- \nname: a\ndescription: b\n---\nbody\n',
      '---\t \r\nname: a\r\ndescription: b\r\n---  \r\nbody\r\n',
      '\ufeff---   \nname: a\ndescription: b\n---\nbody\n',
    ]) {
      const out = parseSkillMd(text)
      expect({ ...out.frontmatter }, JSON.stringify(text)).toEqual({ name: 'a', description: 'b' })
      expect(out.body).toBe('body\n')
    }
    // An empty frontmatter after such a fence is found, and refused for being empty.
    expect(() => parseSkillMd('--- \n---\nbody')).toThrow(/frontmatter is empty/)
  })

  it('still wants the opening fence to be a whole line', () => {
    for (const text of ['--- x\nname: a\n---\n', '---name: a\n---\n', '----\nname: a\n---\n']) {
      expect(
        codeOf(() => parseSkillMd(text)),
        text,
      ).toBe('E_SKILL_MANIFEST_INVALID')
    }
    expect(() => parseSkillMd('---  ')).toThrow(/not closed/)
    expect(() => parseSkillMd('--- x\nname: a\n---\n')).toThrow(/no YAML frontmatter/)
  })

  it('accepts a file that ends right after the closing fence', () => {
    expect(parseSkillMd('---\nname: a\ndescription: b\n---').body).toBe('')
  })

  it('parses full YAML when the fast path declines', () => {
    const out = parseSkillMd(
      '---\nname: a\ndescription: >\n  folded\n  text\ntags: [x, y]\nversion: 2\n---\n',
    )
    expect(out.frontmatter).toEqual({
      name: 'a',
      description: 'folded text\n',
      tags: ['x', 'y'],
      version: 2,
    })
  })

  it('rejects a file with no frontmatter', () => {
    expect(codeOf(() => parseSkillMd('# Just markdown\n'))).toBe('E_SKILL_MANIFEST_INVALID')
  })

  it('rejects unterminated frontmatter', () => {
    expect(codeOf(() => parseSkillMd('---\nname: a\n'))).toBe('E_SKILL_MANIFEST_INVALID')
  })

  it('rejects frontmatter that is not a mapping', () => {
    expect(codeOf(() => parseSkillMd('---\n- a\n- b\n---\n'))).toBe('E_SKILL_MANIFEST_INVALID')
    expect(codeOf(() => parseSkillMd('---\njust a string\n---\n'))).toBe('E_SKILL_MANIFEST_INVALID')
    expect(codeOf(() => parseSkillMd('---\n---\n'))).toBe('E_SKILL_MANIFEST_INVALID')
  })

  it('rejects unparseable YAML with the line number', () => {
    let message = ''
    try {
      parseSkillMd('---\nname: a\ndescription: use when: you need it\n---\n')
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toMatch(/not valid YAML \(frontmatter line \d+\)/)
  })

  it('rejects a YAML alias bomb without expanding it', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i)
      const next = String.fromCharCode(97 + i)
      lines.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`)
    }
    const text = `---\nname: a\ndescription: b\n${lines.join('\n')}\n---\n`
    const err = rejectsWith(() => parseSkillMd(text), 'E_SKILL_MANIFEST_INVALID')
    expect(err.message).toMatch(/aliases/)
  })

  it('rejects frontmatter over the byte cap', () => {
    const big = `---\nname: a\ndescription: ${'x'.repeat(70_000)}\n---\n`
    expect(codeOf(() => parseSkillMd(big))).toBe('E_SKILL_MANIFEST_INVALID')
    expect(codeOf(() => parseSkillMd(big, { maxFrontmatterBytes: 100_000 }))).toBe('resolved')
  })

  it('keeps __proto__ keys as plain data', () => {
    const out = parseSkillMd('---\nname: a\ndescription: b\n"__proto__": {polluted: true}\n---\n')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.hasOwn(out.frontmatter, '__proto__')).toBe(true)
  })
})

describe('decodeSkillText', () => {
  it('rejects invalid UTF-8', () => {
    expect(codeOf(() => decodeSkillText(new Uint8Array([0x2d, 0xff, 0xfe, 0x2d])))).toBe(
      'E_SKILL_MANIFEST_INVALID',
    )
  })

  it('drops a BOM', () => {
    expect(decodeSkillText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe('a')
  })
})

describe('decodeSkillHead', () => {
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)
  const frontmatterOf = (text: string): unknown => {
    try {
      return { ...parseSkillMd(text).frontmatter }
    } catch (err) {
      return (err as Error).message
    }
  }

  it('yields the same frontmatter as the whole file', () => {
    const cases = [
      '---\nname: a\ndescription: b\n---\n# body\n---\nmore\n',
      '---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n',
      '---\rname: a\rdescription: b\r---\rbody',
      '\ufeff---\nname: a\n---  \t\nbody',
      '---  \nname: a\n---\nbody',
      '--- \t\r\nname: a\r\n---\r\nbody',
      '---\nname: a\n---',
      '---\n---\nbody',
      '---\nname: a\n--- x\ndescription: b\n---\n',
      '---\nname: a\n----\n---\n',
      'name: a\n---\nbody\n',
      '---\nname: é\n---\nbodé\n',
      '---\n',
      '',
    ]
    for (const text of cases) {
      const head = decodeSkillHead(bytes(text))
      expect(text.replace(/^\ufeff/, '').startsWith(head), JSON.stringify(text)).toBe(true)
      expect(frontmatterOf(head), JSON.stringify(text)).toEqual(frontmatterOf(text))
    }
  })

  it('still rejects invalid UTF-8 after the frontmatter', () => {
    const good = bytes('---\nname: a\n---\nbody ')
    const bad = new Uint8Array([...good, 0xff, 0x0a])
    expect(() => decodeSkillHead(bad)).toThrow(/not valid UTF-8/)
    expect(decodeSkillHead(good)).toBe('---\nname: a\n---\n')
  })
})
