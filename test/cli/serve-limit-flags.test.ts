import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseServeOptions } from '../../src/cli/serve/serve-options.js'

const examples = join(fileURLToPath(new URL('../..', import.meta.url)), 'examples/skills')

describe('serve --http limit flags', () => {
  it('map to the library options, scaled; absent flags leave the library defaults', () => {
    const o = parseServeOptions(
      [
        examples,
        '--http',
        '0',
        '--max-sessions',
        '8',
        '--max-sessions-per-token',
        '2',
        '--max-body-mib',
        '1',
        '--body-timeout',
        '2.5',
      ],
      {},
    )
    expect(o.http?.limits).toEqual({
      maxSessions: 8,
      maxSessionsPerToken: 2,
      maxBodyBytes: 1024 * 1024,
      bodyTimeoutMs: 2500,
    })
    expect(parseServeOptions([examples, '--http', '0'], {}).http?.limits).toBeUndefined()
  })

  it('refuse 0, non-numbers, and use without --http', () => {
    expect(() => parseServeOptions([examples, '--http', '0', '--max-sessions', '0'], {})).toThrow(
      /--max-sessions must be greater than 0/,
    )
    expect(() => parseServeOptions([examples, '--http', '0', '--body-timeout', 'x'], {})).toThrow(
      /--body-timeout needs a non-negative number/,
    )
    expect(() => parseServeOptions([examples, '--max-sessions', '4'], {})).toThrow(
      /--max-sessions needs --http/,
    )
  })
})
