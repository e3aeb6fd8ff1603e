import { execFile, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'

// One rule for roots (issue 26.2, issue 23's `list a missing-root`): a root
// that cannot be searched is named on stderr in one line, the others are
// still used, and the command ends with 1 (run: 66, beside a script's own codes).

const repo = fileURLToPath(new URL('../..', import.meta.url))
const examples = join(repo, 'examples/skills')
const bin = join(repo, 'dist/cli/main.js')

let tmp = ''
let missing = ''
let file = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-roots-rule-'))
  missing = join(tmp, 'missing')
  file = join(tmp, 'a-file')
  await writeFile(file, 'not a folder\n')
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

const cli = runCli

describe('a root that cannot be searched: named, the others used, exit 1', () => {
  it.each([
    ['list', [], 'word-count'],
    ['prompt', [], '<name>word-count</name>'],
    ['validate', [], 'word-count'],
    ['lock', ['--out', 'LOCK'], 'pinned 5 skills'],
  ])('%s', async (command, extra, shows) => {
    const flags = extra.map((a) => (a === 'LOCK' ? join(tmp, `${command}.lock.json`) : a))
    const r = await cli([command, ...flags, examples, missing, file])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr.split('\n').filter((l) => l.includes('skill root'))).toEqual([
      `skillhost ${command}: skill root ${missing} does not exist`,
      `skillhost ${command}: skill root ${file} is not a folder`,
    ])
    expect(r.stdout).toContain(shows)
  })

  it('list --json lists the others and has each unusable root in sourceErrors', async () => {
    const r = await cli(['list', '--json', missing, examples])
    expect(r.code).toBe(1)
    const json = JSON.parse(r.stdout) as {
      skills: { id: string }[]
      sourceErrors: { root: string; message: string }[]
    }
    expect(json.skills.map((s) => s.id)).toContain('word-count')
    expect(json.sourceErrors).toEqual([{ root: missing, message: 'skill root does not exist' }])
  })

  it('lock still writes the usable roots’ skills', async () => {
    const out = join(tmp, 'lock.json')
    expect((await cli(['lock', '--out', out, examples, missing])).code).toBe(1)
    expect(JSON.parse(await readFile(out, 'utf8')).skills).toHaveProperty('word-count')
  })

  it('run: a skill folder that cannot be used exits 66 (a script may exit 1 itself)', async () => {
    const r = await cli(['run', missing, 'count'])
    expect(r).toEqual({
      code: 66,
      stdout: '',
      stderr: `skillhost run: skill root ${missing} does not exist\n`,
    })
  })

  it('lock with no usable root names it once and exits 1, no second line', async () => {
    const r = await cli(['lock', '--out', join(tmp, 'none.lock.json'), missing])
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `skillhost lock: skill root ${missing} does not exist\n`,
    })
  })

  // With --json an error is JSON on stdout and stderr stays empty (issue 40.3).
  it.each([
    ['run', ['run', '--json', 'MISSING', 'x.py'], 66],
    ['run on a file', ['run', '--json', 'FILE', 'x'], 66],
  ])('%s --json: the error as JSON on stdout, nothing on stderr', async (_label, argv, code) => {
    const args = argv.map((a) => (a === 'MISSING' ? missing : a === 'FILE' ? file : a))
    const r = await cli(args)
    expect(r.code).toBe(code)
    expect(r.stderr).toBe('')
    const shown = args[2] === missing ? `${missing} does not exist` : `${file} is not a folder`
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: 'E_CLI_ROOT_UNUSABLE', message: `skill root ${shown}` },
    })
  })

  it('list --json and validate --json: nothing on stderr, each unusable root in the document', async () => {
    const list = await cli(['list', '--json', missing])
    expect(list.code).toBe(1)
    expect(list.stderr).toBe('')
    expect(JSON.parse(list.stdout).sourceErrors).toEqual([
      { root: missing, message: 'skill root does not exist' },
    ])
    const validate = await cli(['validate', '--json', missing, file])
    expect(validate.code).toBe(1)
    expect(validate.stderr).toBe('')
    const report = JSON.parse(validate.stdout) as { ok: boolean; unusableRoots: unknown }
    expect(report.ok).toBe(false)
    expect(report.unusableRoots).toEqual([
      { root: missing, reason: 'does not exist' },
      { root: file, reason: 'is not a folder' },
    ])
  })

  it('demo --root on a missing folder exits 1 and names it', async () => {
    const r = await cli(['demo', '--root', missing, '--no-scripts'])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`skillhost demo: skill root ${missing} does not exist\n`)
  })

  it('serve: serves the usable roots; exits 1 only when none is', async () => {
    const serve = (args: string[]) =>
      new Promise<{ code: number; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [bin, 'serve', '--no-scripts', '--state-dir', join(tmp, 'state'), ...args],
          { timeout: 20_000 },
          (err, _out, stderr) =>
            resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
        )
        child.stdin?.end()
      })
    const some = await serve([examples, missing])
    expect(some.code, some.stderr).toBe(0)
    expect(some.stderr).toContain(`skillhost serve: skill root ${missing} does not exist\n`)
    expect(some.stderr).toContain(`roots: ${examples}\n`)
    const none = await serve([missing])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no skill root can be searched; nothing to serve.')
  })
})

describe('usage errors: one line and a hint, exit 2 (run: 64)', () => {
  it.each([
    [['list', '--nope'], 'skillhost list: unknown option --nope', 2],
    [['prompt', '--max-tokens', 'x'], 'skillhost prompt: --max-tokens must be', 2],
    [['nope'], 'skillhost: unknown command "nope"', 2],
    [[], 'skillhost: no command given', 2],
    [['run', examples], 'skillhost run: give a skill folder and a script name', 64],
  ])('%j', async (argv, first, code) => {
    const r = await cli(argv as string[])
    expect(r.code).toBe(code)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]!.startsWith(first as string)).toBe(true)
    const command = (argv as string[])[0]
    const hint = code === 64 || ['list', 'prompt'].includes(command ?? '') ? ` ${command}` : ''
    expect(lines[1]).toBe(`Try 'skillhost${hint} --help'.`)
  })
})

describe('a reader that stops early', () => {
  it('list | head: ends quietly with 141 (128 + SIGPIPE), no EPIPE stack', async () => {
    // The reader closes before anything is written, so the first write meets
    // a closed pipe whatever the timing (as `head` after its lines).
    const child = spawn(process.execPath, [bin, 'list', examples, examples, examples, examples], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString('utf8')
    })
    child.stdout.destroy()
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(stderr).not.toContain('EPIPE')
    expect(stderr).not.toContain('Unhandled')
    expect(code).toBe(141)
  })
})
