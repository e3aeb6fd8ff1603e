import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { neutralTempDir } from '../helpers/reachable-temp.js'
import { runCli } from '../helpers/run-cli.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(repo, 'dist/cli/main.js')
const wordCount = join(repo, 'examples/skills/word-count')

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, 'run', ...args], { cwd: repo, env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

let tmp = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-run-'))
  const dir = join(tmp, 'probe')
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(
    join(dir, 'SKILL.md'),
    '---\nname: probe\ndescription: Probes the sandbox.\n---\n# Probe\n',
  )
  await writeFile(
    join(dir, 'skillhost.yaml'),
    'scripts:\n  - name: fds\n    path: scripts/fds.sh\n    description: Lists its fds and uses fd 200.\n    interpreter: bash\n  - name: env\n    path: scripts/env.sh\n    description: Prints its environment.\n    interpreter: sh\n  - name: exit\n    path: scripts/exit.sh\n    description: Exits 7.\n    interpreter: sh\n  - name: two\n    path: scripts/two.sh\n    description: Exits 2, like a usage error of its own.\n    interpreter: sh\n  - name: sixty-four\n    path: scripts/64.sh\n    description: Exits 64.\n    interpreter: sh\n  - name: hang\n    path: scripts/hang.sh\n    description: Never ends.\n    interpreter: sh\n',
  )
  await writeFile(join(dir, 'scripts/64.sh'), 'exit 64\n')
  await writeFile(join(dir, 'scripts/two.sh'), 'echo usage: two >&2; exit 2\n')
  await writeFile(join(dir, 'scripts/hang.sh'), 'echo started; sleep 30; echo never\n')
  await writeFile(join(dir, 'scripts/env.sh'), 'env; id -u; cat /etc/shadow 2>&1 || true\n')
  await writeFile(join(dir, 'scripts/exit.sh'), 'echo bye; exit 7\n')
  await writeFile(
    join(dir, 'scripts/fds.sh'),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    'for f in /proc/self/fd/*; do echo "fd ${f##*/}"; done\necho pwned >&200 && echo "wrote fd 200"\nread -r line <&200 && echo "read fd 200: $line"\necho done\n',
  )
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe.skipIf(process.platform !== 'linux')('skillhost run', () => {
  it('runs an example script under the sandbox with typed params', async () => {
    const out = await run([wordCount, 'count', 'samples/sample.txt', '--top', '2', '--lowercase'])
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(/^lines: \d+\nwords: \d+\nchars: \d+\n/)
    expect(out.stdout.trim().split('\n')).toHaveLength(5)
  })

  it('closes every fd the host inherited without close-on-exec: the script sees only 0-2', async () => {
    // A wrapper's `exec 200<>file` leaves fd 200 open across exec into node, and
    // libuv and bwrap pass it on. The script must not reach the host file through it.
    const hostFile = join(tmp, 'host-lock.txt')
    await writeFile(hostFile, 'host secret\n')
    const out = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        '/bin/bash',
        [
          '-c',
          'exec 200<>"$1"; exec "$2" "$3" run "$4" fds',
          'wrapper',
          hostFile,
          process.execPath,
          bin,
          join(tmp, 'probe'),
        ],
        { cwd: repo },
        (err, stdout) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
      )
    })
    const fds = [...out.stdout.matchAll(/^fd (\d+)$/gm)].map((m) => Number(m[1]))
    // 0-2, plus what the script's own bash holds: the listing's directory (3) and its script file (255).
    expect(fds.slice(0, 3)).toEqual([0, 1, 2])
    expect(fds.filter((fd) => fd > 3 && fd !== 255)).toEqual([])
    expect(out.stdout).not.toContain('wrote fd 200')
    expect(out.stdout).not.toContain('read fd 200')
    expect(out.stdout).toContain('done')
    expect(await readFile(hostFile, 'utf8')).toBe('host secret\n')
    // A normal call still works.
    const normal = await run([wordCount, 'count', 'samples/sample.txt'])
    expect(normal.code).toBe(0)
  })

  it('gives the script an empty environment, an unprivileged uid and no host secrets', async () => {
    const out = await run([join(tmp, 'probe'), 'env'], {
      ...process.env,
      SKILLHOST_TEST_SECRET: 'hunter2',
    })
    expect(out.code).toBe(0)
    expect(out.stdout).not.toContain('hunter2')
    expect(out.stdout).not.toContain(tmp)
    expect(out.stdout).toMatch(/^PATH=/m)
    expect(out.stdout).toMatch(/^65534$/m)
    expect(out.stdout).toMatch(/Permission denied|No such file/)
  })

  it("exits with the script's own exit code", async () => {
    const out = await run([join(tmp, 'probe'), 'exit'])
    expect(out.code).toBe(7)
    expect(out.stdout).toBe('bye\n')
  })

  it("passes a script's exit 2 through, distinct from a usage error (64)", async () => {
    const own = await run([join(tmp, 'probe'), 'two'])
    expect(own.code).toBe(2)
    expect(own.stderr).toContain('usage: two')
    expect(own.stderr).toBe('usage: two\n')
    const usage = await run([join(tmp, 'probe'), 'two', '--bogus'])
    expect(usage.code).toBe(64)
    expect(usage.stderr).toContain('has no parameter --bogus')
    expect((await run([join(tmp, 'probe')])).code).toBe(64)
    // A script's own 64 passes through too, and stderr says it was the script's.
    const own64 = await run([join(tmp, 'probe'), 'sixty-four'])
    expect(own64.code).toBe(64)
    expect(own64.stderr).toBe('[skillhost run: the script itself exited 64]\n')
    const json = await run([join(tmp, 'probe'), 'two', '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 2, timedOut: false })
  })

  it('exits 124 when the script runs past --timeout, showing the output so far', async () => {
    const out = await run([join(tmp, 'probe'), 'hang', '--timeout', '1'])
    expect(out.code).toBe(124)
    expect(out.stdout).toBe('started\n')
    expect(out.stderr).toContain('killed at the deadline')
    const json = await run([join(tmp, 'probe'), 'hang', '--timeout', '1', '--json'])
    expect(json.code).toBe(124)
    expect(JSON.parse(json.stdout)).toMatchObject({ timedOut: true, stdout: 'started\n' })
  })

  it('documents every status in its help', async () => {
    const help = await run(['--help'])
    expect(help.code).toBe(0)
    for (const line of [
      /^ {2}64 +usage error/m,
      /^ {2}69 +the sandbox could not run/m,
      /^ {2}124 +the script ran past/m,
    ])
      expect(help.stdout).toMatch(line)
  })

  it('refuses unknown scripts and parameters, and option-injection values', async () => {
    const missing = await run([wordCount, 'nope'])
    expect(missing.code).toBe(64)
    expect(missing.stderr).toContain("declares no script 'nope' (scripts: count)")
    const unknown = await run([wordCount, 'count', 'x', '--bogus', '1'])
    expect(unknown.code).toBe(64)
    expect(unknown.stderr).toContain('--file, --top, --lowercase')
    const injected = await run([wordCount, 'count', 'samples/sample.txt', '--top', '-1'])
    expect(injected.code).toBe(64)
    // Said in flags (the person's voice), not as the model's parameter.
    expect(injected.stderr).toBe(
      "skillhost run: --top value must not start with '-' (it would be read as an option).\n",
    )
  })

  it('names a bad SKILL.md as validate does, not "found 0 skills" (issue 40.6)', async () => {
    const bad = join(tmp, 'bad-yaml')
    await mkdir(bad, { recursive: true })
    await writeFile(
      join(bad, 'SKILL.md'),
      '---\nname: bad-yaml\ndescription: x\nfoo: [\n---\nbody\n',
    )
    const r = await run([bad, 'x.sh'])
    expect(r.code).toBe(64)
    expect(r.stderr).toMatch(
      /^skillhost run: E_SKILL_MANIFEST_INVALID: SKILL\.md frontmatter is not valid YAML \(frontmatter line 4\)/,
    )
    expect(r.stderr).not.toContain('found 0 skills')
    const json = await run(['--json', bad, 'x.sh'])
    expect(json.stderr).toBe('')
    expect(JSON.parse(json.stdout).error.code).toBe('E_SKILL_MANIFEST_INVALID')
  })

  it('explains a TMPDIR the sandbox user cannot traverse instead of failing opaquely', async () => {
    const own = await neutralTempDir('skillhost-run-private-', 0o700)
    try {
      const out = await run([join(tmp, 'probe'), 'exit'], { ...process.env, TMPDIR: own })
      // 69 (EX_UNAVAILABLE): the sandbox could not run it, which no script's own code says.
      expect(out.code).toBe(69)
      expect(out.stderr).toMatch(/E_SANDBOX_UNAVAILABLE: .*cannot traverse .*TMPDIR=\/tmp/)
      expect(await readdir(own)).toEqual([])
    } finally {
      await rm(own, { recursive: true, force: true })
    }
  })

  it('leaves no temporary workspace behind', async () => {
    // A private TMPDIR: other suites create skillhost-* folders in /tmp concurrently.
    const own = await neutralTempDir('skillhost-run-tmp-')
    try {
      const out = await run([join(tmp, 'probe'), 'exit'], { ...process.env, TMPDIR: own })
      expect(out.code).toBe(7)
      expect(await readdir(own)).toEqual([])
    } finally {
      await rm(own, { recursive: true, force: true })
    }
  })

  it('runs an undeclared file of a skill with literal args after --, in a workspace folder you give', async () => {
    const skill = join(tmp, 'undeclared')
    await mkdir(join(skill, 'scripts'), { recursive: true })
    await writeFile(
      join(skill, 'SKILL.md'),
      '---\nname: undeclared\ndescription: No sidecar.\n---\n# U\n',
    )
    await writeFile(
      join(skill, 'scripts/upper.py'),
      'import sys\ntext = open(sys.argv[1]).read()\nopen(sys.argv[2], "w").write(text.upper())\nprint("args:", sys.argv[1:])\n',
    )
    const ws = await mkdtemp(join(tmpdir(), 'skillhost-run-ws-'))
    // As root the sandbox runs as nobody, who must be able to write the folder.
    await chmod(ws, 0o777)
    try {
      await writeFile(join(ws, 'in.txt'), 'hello')
      const out = await run([
        skill,
        'scripts/upper.py',
        '--workspace',
        ws,
        '--',
        'in.txt',
        'out.txt',
      ])
      expect(out).toMatchObject({ code: 0 })
      expect(out.stdout).toContain("args: ['in.txt', 'out.txt']")
      expect(out.stderr).toContain('[skillhost run: created /work/out.txt]')
      expect(await readFile(join(ws, 'out.txt'), 'utf8')).toBe('HELLO')
      // Without the extension, as instructions often write it; and a file that is no script.
      expect(
        (await run([skill, 'scripts/upper', '--workspace', ws, '--', 'in.txt', 'o2.txt'])).code,
      ).toBe(0)
      const notScript = await run([skill, 'SKILL.md'])
      expect(notScript.code).toBe(64)
      expect(notScript.stderr).toContain(
        "E_SKILL_SCRIPT_INVALID_ARGS: Skill 'undeclared' has no runnable script 'SKILL.md'",
      )
    } finally {
      await rm(ws, { recursive: true, force: true })
    }
  })
  it('passes everything after -- to the script verbatim, --help included (issue 23)', async () => {
    const skill = join(tmp, 'echo-args')
    await mkdir(join(skill, 'scripts'), { recursive: true })
    await writeFile(
      join(skill, 'SKILL.md'),
      '---\nname: echo-args\ndescription: Echoes.\n---\n# E\n',
    )
    await writeFile(join(skill, 'scripts/args.sh'), 'echo "args: $*"\n')
    const out = await run([skill, 'scripts/args.sh', '--', '--help', '-h', '--json', '--'])
    expect(out).toMatchObject({ code: 0, stdout: 'args: --help -h --json --\n' })
    // Words before -- are the script's too, as a user types them (scripts/fill.py input.pdf).
    const words = await run([skill, 'scripts/args.sh', 'in.pdf', '--timeout', '20', 'out.pdf'])
    expect(words).toMatchObject({ code: 0, stdout: 'args: in.pdf out.pdf\n' })
    // A flag that is not run's is the script's, where it stands.
    const flag = await run([skill, 'scripts/args.sh', 'in.pdf', '--pages', '3', '--json'])
    expect(flag.code).toBe(0)
    expect(JSON.parse(flag.stdout).stdout).toBe('args: in.pdf --pages 3\n')
    // Before --, --help is run's own.
    const help = await run([skill, 'scripts/args.sh', '--help', '--', 'x'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: skillhost run/)
  })
})

describe.skipIf(process.platform !== 'linux')(
  'skillhost run: a permission request (issue 24)',
  () => {
    it('grants nothing itself: names each request the flags do not give, quoted, and the flag that would', async () => {
      const base = await mkdtemp(join(tmpdir(), 'skillhost-run-perm-'))
      try {
        await chmod(base, 0o755)
        const shared = join(base, 'shared')
        await mkdir(shared)
        await chmod(shared, 0o755)
        await writeFile(join(shared, 'f.txt'), 'shared-bytes\n')
        await chmod(join(shared, 'f.txt'), 0o644)
        const dir = join(base, 'asks')
        await mkdir(join(dir, 'scripts'), { recursive: true })
        await mkdir(join(dir, 'agents'))
        await writeFile(join(dir, 'SKILL.md'), '---\nname: asks\ndescription: Asks.\n---\n# A\n')
        await writeFile(join(dir, 'scripts/go.sh'), `cat ${shared}/f.txt\n`)
        await writeFile(
          join(dir, 'agents/openai.yaml'),
          `permissions:\n  network: true\n  file_system:\n    read: [${shared}, "/srv/other data", notes.md]\n    write: [/srv/drop]\n`,
        )
        const out = await runCli(['run', '--read-path', shared, dir, 'scripts/go.sh'])
        expect(out.stdout).toBe('shared-bytes\n')
        expect(out.code).toBe(0)
        expect(out.stderr).toContain(
          '[skillhost run: the skill requests read "/srv/other data" (not given: --read-path "/srv/other data" gives it); write /srv/drop (not given: run lets scripts write only /work, --workspace DIR); network (never given)]\n',
        )
        // Given by the flag, or the skill's own file: not named.
        expect(out.stderr).not.toContain(`read ${shared}`)
        expect(out.stderr).not.toContain('notes.md')
        // Without the flag the same read is named, and the script cannot read it.
        const bare = await runCli(['run', dir, 'scripts/go.sh'])
        expect(bare.stderr).toContain(`read ${shared} (not given: --read-path ${shared} gives it)`)
        expect(bare.stdout).not.toContain('shared-bytes')
      } finally {
        await rm(base, { recursive: true, force: true })
      }
    })
  },
)
