import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/cli-main.js'
import { parseServeOptions } from '../../src/cli/serve/serve-options.js'
import { runCli } from '../helpers/run-cli.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const examples = join(repo, 'examples/skills')
const bin = join(repo, 'dist/cli/main.js')
const version = (
  JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }
).version

/** A flag of each command, to stand before `--help`. */
const OTHER_FLAG: Record<string, string> = {
  validate: '--json',
  list: '--json',
  prompt: '--strict',
  lock: '--no-default-roots',
  run: '--json',
  serve: '--no-scripts',
  demo: '--no-scripts',
}

/** Runs `main` in-process with a captured io (not a terminal). */
const cli = runCli

/** The built binary, for what only a process shows (exit status, real streams). */
function binary(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: repo }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

describe('skillhost help and version (issue 12 item 9)', () => {
  it.each([['--help'], ['-h'], ['help']])(
    '%s prints the usage to stdout and exits 0',
    async (a) => {
      const r = await cli([a])
      expect(r).toMatchObject({ code: 0, stderr: '' })
      expect(r.stdout).toMatch(/^Usage: skillhost <command>/)
      for (const name of COMMANDS.keys()) expect(r.stdout).toContain(`  ${name}`)
    },
  )

  it.each([...COMMANDS.keys()])(
    'help %s, %s --help and %s -h print its help to stdout and exit 0',
    async (name) => {
      const help = await cli(['help', name])
      expect(help).toMatchObject({ code: 0, stderr: '' })
      expect(help.stdout).toMatch(new RegExp(`^Usage: skillhost ${name}`))
      for (const flag of ['--help', '-h']) {
        // Help asked for after another flag too: flags go in any position.
        for (const argv of [
          [name, flag],
          [name, OTHER_FLAG[name]!, flag],
        ]) {
          const r = await cli(argv)
          expect(r, argv.join(' ')).toEqual({ code: 0, stdout: help.stdout, stderr: '' })
        }
      }
    },
  )

  it('a usage error goes to stderr with exit 2: no command, an unknown one, help for an unknown one', async () => {
    for (const argv of [[], ['nope'], ['help', 'nope'], ['help', 'list', 'extra']]) {
      const r = await cli(argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stdout, argv.join(' ')).toBe('')
      // One line and a hint, not the whole usage (issue 26.2).
      expect(r.stderr, argv.join(' ')).toMatch(
        /^skillhost[^\n]*: [^\n]+\nTry 'skillhost --help'\.\n$/,
      )
    }
    const bad = await cli(['list', '--nope', examples])
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe('')
    expect(bad.stderr).toBe("skillhost list: unknown option --nope\nTry 'skillhost list --help'.\n")
  })

  it('the binary: usage on stderr with 2 for no command; -v and --version print the version', async () => {
    const none = await binary([])
    expect(none.code).toBe(2)
    expect(none.stdout).toBe('')
    expect(none.stderr).toBe("skillhost: no command given\nTry 'skillhost --help'.\n")
    for (const flag of ['-v', '--version']) {
      expect(await binary([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
    }
    const help = await binary(['serve', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: skillhost serve/)
    expect(help.stderr).toBe('')
  })
})

describe('flags in any position (issue 12 item 9)', () => {
  it('list, validate and prompt: flags before, between and after the roots give the same answer', async () => {
    const second = join(repo, 'test/fixtures/real-skills')
    // Each command's flags, one group per flag (a flag with its value).
    const cases: [string, string[][]][] = [
      ['list', [['--json'], ['--no-scripts']]],
      ['validate', [['--json'], ['--lenient']]],
      ['prompt', [['--max-tokens', '300'], ['--strict']]],
    ]
    for (const [name, [first, rest]] of cases) {
      const after = await cli([name, examples, second, ...first!, ...rest!])
      expect(after.code, `${name}: ${after.stderr}`).toBeLessThan(2)
      const before = await cli([name, ...first!, ...rest!, examples, second])
      const between = await cli([name, ...first!, examples, ...rest!, second])
      expect(before, `${name} flags first`).toEqual(after)
      expect(between, `${name} flags between`).toEqual(after)
    }
    // The flags did take effect wherever they stood.
    const listed = JSON.parse((await cli(['list', examples, '--json'])).stdout) as {
      roots: string[]
    }
    expect(listed.roots).toEqual([examples])
  })

  it('serve: flags before or after the roots', () => {
    const a = parseServeOptions(['--no-scripts', examples, '--import-modules', '--max-depth', '3'])
    const b = parseServeOptions([examples, '--max-depth=3', '--import-modules', '--no-scripts'])
    expect(a).toEqual(b)
    expect(a).toMatchObject({ roots: [examples], maxDepth: 3, importModules: true, scripts: false })
  })

  it.skipIf(process.platform !== 'linux')(
    'run: its own flags before, between or after the skill folder and the script',
    async () => {
      const skill = join(examples, 'word-count')
      const orders = [
        ['run', skill, 'count', 'samples/sample.txt', '--json', '--timeout', '10'],
        ['run', '--json', '--timeout', '10', skill, 'count', 'samples/sample.txt'],
        ['run', skill, '--timeout=10', 'count', '--json', 'samples/sample.txt'],
      ]
      const results = await Promise.all(orders.map((o) => binary(o)))
      for (const [i, r] of results.entries()) {
        expect(r.code, `${orders[i]!.join(' ')}: ${r.stderr}`).toBe(0)
        expect(JSON.parse(r.stdout).stdout).toMatch(/words: \d+/)
      }
      // A script's parameter before the script's name is a usage error, not a guess.
      const early = await binary(['run', '--top', '3', skill, 'count', 'samples/sample.txt'])
      expect(early.code).toBe(64)
      expect(early.stderr).toContain('unknown option --top before the skill folder and script name')
      // With --json the same words come as the JSON error, and stderr stays empty.
      const bogus = await binary(['run', '--json', '--bogus', skill, 'count'])
      expect(bogus.code).toBe(64)
      expect(bogus.stderr).toBe('')
      expect(JSON.parse(bogus.stdout).error).toEqual({
        code: 'E_CLI_USAGE',
        message: expect.stringContaining('unknown option --bogus'),
      })
    },
  )
})
