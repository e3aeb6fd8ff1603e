import { describe, expect, it } from 'vitest'
import { normalizeSkillPath } from '../../src/skill-model/skill-path.js'
import { rejectsWith } from '../helpers/error-code.js'

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
    rejectsWith(() => normalizeSkillPath(path), 'E_SKILL_SOURCE_PATH_REJECTED')
  })
})
