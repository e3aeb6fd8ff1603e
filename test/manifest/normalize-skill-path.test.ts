import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { normalizeSkillPath } from '../../src/skill-model/skill-path.js'

describe('normalizeSkillPath', () => {
  it('normalizes relative paths', () => {
    expect(normalizeSkillPath('./a//b/./c.txt')).toBe('a/b/c.txt')
    expect(normalizeSkillPath('a\\b')).toBe('a/b')
  })

  it.each([
    '',
    '.',
    '../x',
    'a/../../x',
    'a/..',
    '/etc/passwd',
    '~/x',
    '~root',
    // Found by test/fuzz: the first-segment checks ran before './' was dropped.
    './~',
    './/~root/x',
    './C:/x',
    'C:\\x',
    'c:x',
    '\\\\srv\\share',
    'a\0b',
    'a\nb',
    'CON',
    'x/nul.txt',
  ])('rejects %j', (path) => {
    let err: unknown
    try {
      normalizeSkillPath(path)
    } catch (e) {
      err = e
    }
    expect(SkillHostError.is(err, 'E_SKILL_SOURCE_PATH_REJECTED')).toBe(true)
  })
})
