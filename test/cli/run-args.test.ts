import { describe, expect, it } from 'vitest'
import { scriptArgs, undeclaredArgv } from '../../src/cli/run/run-args.js'
import { UsageError } from '../../src/cli/shared/parse-args.js'
import type { SkillScriptDeclaration } from '../../src/sources/index.js'

const script = {
  name: 'count',
  path: 'scripts/count.py',
  interpreter: 'python3',
  params: [
    { name: 'file', type: 'string', positional: true },
    { name: 'pattern', type: 'string', positional: true },
    { name: 'top', type: 'integer' },
  ],
} as unknown as SkillScriptDeclaration

describe('run: a declared script’s arguments (issue 23: everything after -- is the script’s)', () => {
  it('after --, values that look like flags are positionals, taken literally', () => {
    expect({ ...scriptArgs(script, ['a.txt', '--top', '3', '--', '--help']) }).toEqual({
      file: 'a.txt',
      top: 3,
      pattern: '--help',
    })
    expect({ ...scriptArgs(script, ['--', '--json', '--']) }).toEqual({
      file: '--json',
      pattern: '--',
    })
  })

  it('before --, an unknown flag is still a usage error, and run’s own flags are skipped', () => {
    expect(() => scriptArgs(script, ['--help-me'])).toThrow(UsageError)
    expect({ ...scriptArgs(script, ['--json', 'a.txt', '--timeout', '5']) }).toEqual({
      file: 'a.txt',
    })
    expect(() => scriptArgs(script, ['--', 'a', 'b', 'c'])).toThrow(/no more positional values/)
  })
})

describe('run: an undeclared file’s argv', () => {
  it('words are its arguments in order, run’s own flags are not, and after -- everything is', () => {
    expect(undeclaredArgv(['input.pdf'])).toEqual(['input.pdf'])
    expect(
      undeclaredArgv([
        'a.pdf',
        '--timeout',
        '5',
        'b.pdf',
        '--json',
        '--workspace=/w',
        '--',
        '--x',
        '--',
      ]),
    ).toEqual(['a.pdf', 'b.pdf', '--x', '--'])
    expect(
      undeclaredArgv(['--read-path', '/data', '--interpreter', 'py=/usr/bin/python3']),
    ).toEqual([])
  })

  it('a flag that is not run’s is the script’s, in order, as typed after python scripts/pack.py', () => {
    expect(undeclaredArgv(['unpacked/', 'out.docx', '--original', 'in.docx'])).toEqual([
      'unpacked/',
      'out.docx',
      '--original',
      'in.docx',
    ])
    // run's own names reach the script only after --.
    expect(undeclaredArgv(['in.pdf', '--timeout', '9', '--', '--timeout', '3'])).toEqual([
      'in.pdf',
      '--timeout',
      '3',
    ])
  })
})
