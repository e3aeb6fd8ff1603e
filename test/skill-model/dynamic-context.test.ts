import { describe, expect, it } from 'vitest'
import { type BodySegment, splitDynamicContext } from '../../src/skill-model/dynamic-context.js'

const commands = (body: string) =>
  splitDynamicContext(body).flatMap((s) => (s.kind === 'command' ? [s.command] : []))
const joined = (segments: BodySegment[]) =>
  segments.map((s) => (s.kind === 'text' ? s.text : s.source)).join('')

describe('splitDynamicContext (the one rule for !`command`)', () => {
  it('finds inline commands at a line start or after whitespace, as public skills write them', () => {
    const body = [
      '## Context',
      '!`git status --short`',
      '- Branch: !`git rev-parse --abbrev-ref HEAD 2>/dev/null || echo none`',
      'Files changed:\t!`git diff --name-only`',
      '',
    ].join('\n')
    expect(commands(body)).toEqual([
      'git status --short',
      'git rev-parse --abbrev-ref HEAD 2>/dev/null || echo none',
      'git diff --name-only',
    ])
    expect(joined(splitDynamicContext(body))).toBe(body)
  })

  it('leaves documentation alone: other code spans, a ! inside a word or after punctuation, other fences', () => {
    const body = [
      '- Prefer `assert_eq!` over `assert!` for better messages',
      'the user must run it themselves via `!` prefix',
      '- **Bash execution** - include output (!`command`)',
      'Write it as `` !`git status` `` in your SKILL.md.',
      'x!`not this`',
      '```markdown',
      '!`echo inside a fence`',
      '```',
      '~~~md',
      '!`echo inside a tilde fence`',
      '~~~',
      '```python',
      'print("x") !`echo mid-line in a fence`',
      '```',
      '!`unclosed',
    ].join('\n')
    expect(commands(body)).toEqual([])
    expect(joined(splitDynamicContext(body))).toBe(body)
  })

  it('inside another fence runs a line that is only a command, never in a markdown fence', () => {
    const body = [
      '```json',
      '!`npx some-cli info --json`',
      '```',
      '```yaml',
      '- PR diff: !`gh pr diff`',
      '```',
      '```markdown',
      '!`git status`',
      '```',
      '```text',
      '  !`git log --oneline`  ',
      '```',
    ].join('\n')
    expect(commands(body)).toEqual(['npx some-cli info --json', 'git log --oneline'])
    expect(joined(splitDynamicContext(body))).toBe(body)
  })

  it('runs a fenced block whose info string is exactly !, as a whole', () => {
    const body = 'Before\n```!\nnode --version\nnpm --version\n```\nAfter\n'
    const segments = splitDynamicContext(body)
    expect(segments).toEqual([
      { kind: 'text', text: 'Before\n' },
      {
        kind: 'command',
        command: 'node --version\nnpm --version',
        source: '```!\nnode --version\nnpm --version\n```',
        form: 'block',
      },
      { kind: 'text', text: '\nAfter\n' },
    ])
    // `! ` with a trailing word is another info string; an unclosed ! fence runs nothing.
    expect(commands('```!bash\necho x\n```\n')).toEqual([])
    expect(commands('```!\necho x\n')).toEqual([])
  })

  it('keeps CRLF bodies intact and finds the same commands', () => {
    const body = 'a\r\n!`echo one`\r\n```!\r\necho two\r\n```\r\nb'
    expect(commands(body)).toEqual(['echo one', 'echo two'])
    expect(joined(splitDynamicContext(body))).toBe(body)
  })
})
