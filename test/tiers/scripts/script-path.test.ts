import { describe, expect, it } from 'vitest'
import { normalizeSkillPath as normalizeScriptPath } from '../../../src/skill-model/skill-path.js'
import { codeOf } from '../../helpers/error-code.js'

describe('normalizeScriptPath', () => {
  it('normalizes separators, dots and empty segments', () => {
    expect(normalizeScriptPath('scripts/run.sh')).toBe('scripts/run.sh')
    expect(normalizeScriptPath('./scripts//run.sh')).toBe('scripts/run.sh')
    expect(normalizeScriptPath('scripts\\win\\run.py')).toBe('scripts/win/run.py')
    expect(normalizeScriptPath('ab:c/d.sh')).toBe('ab:c/d.sh')
  })

  it.each([
    ['absolute', '/etc/passwd'],
    ['absolute backslash', '\\etc\\passwd'],
    ['traversal', '../x.sh'],
    ['inner traversal', 'a/../../x'],
    ['harmless-looking traversal', 'a/../b'],
    ['home', '~/x'],
    ['other home', '~root/.ssh/id'],
    // Found by test/fuzz: the first-segment checks ran before './' was dropped.
    ['home after ./', './~/x'],
    ['drive after ./', '.\\C:\\x.sh'],
    ['drive', 'C:\\x.sh'],
    ['drive relative', 'c:x.sh'],
    ['UNC', '\\\\server\\share\\x'],
    ['UNC slashes', '//server/share/x'],
    ['device namespace', '\\\\.\\COM1'],
    ['win32 file namespace', '\\\\?\\C:\\x'],
    ['device name', 'NUL'],
    ['device name with extension', 'scripts/con.txt'],
    ['com port', 'lpt1'],
    ['NUL byte', 'run.sh\0.txt'],
    ['control character', 'run\n.sh'],
    ['empty', ''],
    ['only dots', './.'],
  ])('rejects %s', (_label, path) => {
    expect(codeOf(() => normalizeScriptPath(path))).toBe('E_SKILL_SOURCE_PATH_REJECTED')
  })

  it('says what to do in the message', () => {
    try {
      normalizeScriptPath('../x')
    } catch (err) {
      expect((err as Error).message).toContain("such as 'scripts/run.sh'")
    }
  })
})
