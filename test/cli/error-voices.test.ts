import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { reportError } from '../../src/cli/shared/report-error.js'
import { neutralTempDir } from '../helpers/reachable-temp.js'

// Each command's errors in the person's voice (flags, not tool parameters;
// never the model's "call read_skill_file"), their --json form
// ({"error":{"code","message"}} on stdout, nothing on stderr) and the exit
// status. In process, through the same `main` the binary runs.
const repo = fileURLToPath(new URL('../..', import.meta.url))
const wordCount = join(repo, 'examples/skills/word-count')
const linux = process.platform === 'linux'
// Neutral: the sandbox's base must go where this test points TMPDIR.
const base = await neutralTempDir('skillhost-voices-', 0o700)
afterAll(() => rmSync(base, { recursive: true, force: true }))

const empty = join(base, 'empty')
mkdirSync(empty)
const undeclared = join(base, 'undeclared')
mkdirSync(join(undeclared, 'scripts'), { recursive: true })
writeFileSync(
  join(undeclared, 'SKILL.md'),
  '---\nname: undeclared\ndescription: Has one runnable file.\n---\nRun scripts/go.sh.\n',
)
writeFileSync(join(undeclared, 'scripts/go.sh'), '#!/bin/sh\necho go\n')

async function cli(...argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
  })
  return { code, stdout, stderr }
}

function jsonError(stdout: string): { code: string; message: string } {
  const parsed = JSON.parse(stdout) as { error: { code: string; message: string } }
  expect(Object.keys(parsed)).toEqual(['error'])
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message'])
  return parsed.error
}

describe('usage errors: E_CLI_USAGE, exit 2 (run: 64), text or JSON', () => {
  it('validate and list: an unknown flag, as text and as JSON', async () => {
    for (const command of ['validate', 'list']) {
      const text = await cli(command, '--nope', empty)
      expect(text.code, command).toBe(2)
      expect(text.stderr).toMatch(new RegExp(`^skillhost ${command}: unknown option --nope`))
      expect(text.stdout).toBe('')
      const json = await cli(command, '--json', '--nope', empty)
      expect(json.code, command).toBe(2)
      expect(json.stderr).toBe('')
      expect(jsonError(json.stdout)).toEqual({
        code: 'E_CLI_USAGE',
        message: 'unknown option --nope',
      })
    }
  })

  it('prompt, lock and serve (no --json): a bad value says the flag, on stderr', async () => {
    const prompt = await cli('prompt', '--max-tokens', '0', empty)
    expect(prompt.code).toBe(2)
    expect(prompt.stderr).toMatch(/^skillhost prompt: --max-tokens must be a positive whole number/)
    const serve = await cli('serve', '--gate', 'nope', empty)
    expect(serve.code).toBe(2)
    expect(serve.stderr).toMatch(/^skillhost serve: --gate must be allow-all or deny-scripts/)
    const lock = await cli('lock', '--nope')
    expect(lock.code).toBe(2)
    expect(lock.stderr).toMatch(/^skillhost lock: unknown option --nope/)
    // Without --json support, --json is just an unknown flag, reported as text.
    const json = await cli('lock', '--json')
    expect(json.code).toBe(2)
    expect(json.stdout).toBe('')
    expect(json.stderr).toMatch(/^skillhost lock: unknown option --json/)
  })

  it.skipIf(!linux)(
    'run: --timeout 0 names the flag, not the tool parameter; exit 64',
    async () => {
      const text = await cli('run', wordCount, 'count', 'SKILL.md', '--timeout', '0')
      expect(text.code).toBe(64)
      expect(text.stderr).toMatch(/^skillhost run: --timeout must be a whole number of seconds/)
      expect(text.stderr).not.toContain('timeout_seconds')
      const json = await cli('run', wordCount, 'count', 'SKILL.md', '--timeout', '0', '--json')
      expect(json.code).toBe(64)
      expect(json.stderr).toBe('')
      const error = jsonError(json.stdout)
      expect(error.code).toBe('E_CLI_USAGE')
      expect(error.message).toMatch(/^--timeout must be a whole number of seconds from 1 to \d+$/)
    },
  )

  it.skipIf(!linux)(
    'run: a declared parameter refused by its declaration says --name',
    async () => {
      const text = await cli('run', wordCount, 'count', 'SKILL.md', '--top', '1.5')
      expect(text.code).toBe(64)
      expect(text.stderr).toBe('skillhost run: --top must be an integer.\n')
      const json = await cli('run', wordCount, 'count', 'SKILL.md', '--top', '1.5', '--json')
      expect(json.code).toBe(64)
      expect(jsonError(json.stdout)).toEqual({
        code: 'E_CLI_USAGE',
        message: '--top must be an integer.',
      })
    },
  )

  it('run: a folder that is not one skill, as text and JSON; exit 64', async () => {
    const text = await cli('run', empty, 'count')
    expect(text.code).toBe(64)
    expect(text.stderr).toMatch(/must be one skill folder holding SKILL\.md \(found 0 skills\)/)
    const json = await cli('run', empty, 'count', '--json')
    expect(json.code).toBe(64)
    expect(jsonError(json.stdout).code).toBe('E_CLI_USAGE')
  })
})

describe('failures: the error code, the person text, exit 1 (run: its sysexits)', () => {
  it.skipIf(!linux)(
    'run: an undeclared file that is not there lists the runnable files, not read_skill_file',
    async () => {
      const text = await cli('run', undeclared, 'scripts/none.sh')
      expect(text.code).toBe(64)
      expect(text.stderr).toBe(
        "skillhost run: E_SKILL_SCRIPT_INVALID_ARGS: Skill 'undeclared' has no runnable script 'scripts/none.sh' (runnable files: scripts/go.sh).\n",
      )
      expect(text.stderr).not.toContain('read_skill_file')
      const json = await cli('run', undeclared, 'scripts/none.sh', '--json')
      expect(jsonError(json.stdout)).toEqual({
        code: 'E_SKILL_SCRIPT_INVALID_ARGS',
        message:
          "Skill 'undeclared' has no runnable script 'scripts/none.sh' (runnable files: scripts/go.sh).",
      })
    },
  )

  it('reportError: any other thrown value is E_CLI_FAILED, exit 1, its message as the person text', () => {
    let stdout = ''
    const io = {
      stdout: (t: string) => {
        stdout += t
      },
      stderr: () => undefined,
    }
    expect(reportError(new Error('the disk is full'), { io, command: 'lock', json: true })).toBe(1)
    expect(jsonError(stdout)).toEqual({ code: 'E_CLI_FAILED', message: 'the disk is full' })
  })

  it('list: a lockfile it cannot use keeps its code; the person text names the flag', async () => {
    const missing = join(base, 'missing.lock.json')
    const text = await cli('list', '--locked', missing, empty)
    expect(text.code).toBe(1)
    expect(text.stderr).toBe(
      `skillhost list: E_INVALID_SKILLS_CONFIG: --locked ${missing}: The skill lockfile could not be read (ENOENT).\n`,
    )
    const json = await cli('list', '--json', '--locked', missing, empty)
    expect(json.code).toBe(1)
    expect(json.stderr).toBe('')
    expect(jsonError(json.stdout)).toEqual({
      code: 'E_INVALID_SKILLS_CONFIG',
      message: `--locked ${missing}: The skill lockfile could not be read (ENOENT).`,
    })
  })

  it('lock: no skill to pin is E_CLI_FAILED, exit 1, saying what was not written', async () => {
    const out = join(base, 'skills.lock.json')
    const text = await cli('lock', '--no-default-roots', '--root', empty, '--out', out)
    expect(text.code).toBe(1)
    expect(text.stderr).toMatch(/^skillhost lock: no skill found to pin; .* was not written\.\n$/)
  })

  it.skipIf(!linux || process.getuid?.() !== 0)(
    'run: a sandbox that cannot reach its base names the host folder to the person only',
    async () => {
      const closed = join(base, 'Jane Doe', 'closed (é,#)')
      mkdirSync(closed, { recursive: true })
      chmodSync(closed, 0o700)
      const saved = process.env.TMPDIR
      process.env.TMPDIR = closed
      try {
        const text = await cli('run', wordCount, 'count', 'SKILL.md')
        expect(text.code).toBe(69)
        expect(text.stderr).toContain('skillhost run: E_SANDBOX_UNAVAILABLE: ')
        expect(text.stderr).toContain(closed)
        expect(text.stderr).toMatch(/chmod o\+x/)
        const json = await cli('run', wordCount, 'count', 'SKILL.md', '--json')
        expect(json.code).toBe(69)
        const error = jsonError(json.stdout)
        expect(error.code).toBe('E_SANDBOX_UNAVAILABLE')
        expect(error.message).toContain(closed)
      } finally {
        if (saved === undefined) delete process.env.TMPDIR
        else process.env.TMPDIR = saved
      }
    },
  )
})
