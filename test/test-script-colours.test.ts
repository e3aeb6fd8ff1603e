import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// Issue 40.13: `npm test`'s output carried ANSI colours when piped (CI sets CI,
// which turns vitest's colours on). scripts/test.sh sources
// scripts/colour-env.sh before vitest runs; here the same rule runs a
// one-test vitest project, piped and in a pseudo-terminal (`script`).
const ROOT = join(import.meta.dirname, '..')
const VITEST = `exec "${process.execPath}" node_modules/vitest/vitest.mjs run --config test/fixtures/colour/vitest.config.mjs`
const RUN = `source scripts/colour-env.sh; ${VITEST}`
/** An SGR colour (foreground, background, bright): what the reporter paints with. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is looked for
const COLOUR = /\u001b\[(3|4|9)\dm/

function output(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { NO_COLOR: _n, FORCE_COLOR: _f, ...base } = process.env
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', command],
      { cwd: ROOT, env: { ...base, ...env } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stdout}${stderr}`)) : resolve(stdout + stderr),
    )
  })
}

/** `RUN` in a pseudo-terminal, as a person at a terminal runs `npm test`. */
const inTerminal = (env: NodeJS.ProcessEnv) =>
  output(`script -qec ${JSON.stringify(`bash -c '${RUN}'`)} /dev/null`, env)

describe('npm test colours only a terminal', () => {
  it('a pipe gets plain text, even under CI', async () => {
    const piped = await output(RUN, { CI: '1' })
    expect(piped).toContain('1 passed')
    expect(piped).not.toMatch(COLOUR)
    // Without the rule, the same run under CI is coloured: the rule is what removes it.
    expect(await output(VITEST, { CI: '1' })).toMatch(COLOUR)
  }, 60_000)

  it('a terminal gets colours, unless NO_COLOR is set', async () => {
    expect(await inTerminal({})).toMatch(COLOUR)
    const plain = await inTerminal({ NO_COLOR: '1' })
    expect(plain).toContain('1 passed')
    expect(plain).not.toMatch(COLOUR)
  }, 60_000)

  it('FORCE_COLOR keeps colours in a pipe', async () => {
    expect(await output(RUN, { FORCE_COLOR: '1' })).toMatch(COLOUR)
  }, 60_000)
})
