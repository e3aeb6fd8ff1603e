import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(repo, 'dist/cli/main.js')
const examples = join(repo, 'examples/skills')

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: repo }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

let tmp = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-cli-'))
  await mkdir(join(tmp, 'bad/broken'), { recursive: true })
  await writeFile(join(tmp, 'bad/broken/SKILL.md'), '---\nname: broken\n---\nno description\n')
  // Lenient hosts take a missing description from the body; bad YAML stays skipped everywhere.
  await mkdir(join(tmp, 'bad-yaml/broken'), { recursive: true })
  await writeFile(
    join(tmp, 'bad-yaml/broken/SKILL.md'),
    '---\nname: broken\ndescription: [not valid YAML\n---\nbody\n',
  )
  await mkdir(join(tmp, 'warn/Mixed'), { recursive: true })
  await writeFile(
    join(tmp, 'warn/Mixed/SKILL.md'),
    '---\nname: Mixed\ndescription: A <b>"bold"</b> & odd skill.\nauthor: me\n---\n',
  )
  await mkdir(join(tmp, 'ctl/escapes'), { recursive: true })
  await writeFile(
    join(tmp, 'ctl/escapes/SKILL.md'),
    '---\nname: escapes\ndescription: "Clears\\e[2J the screen\\r over\\u009b31m writes \\u202eflipped\\a"\n---\n# E\n',
  )
  await mkdir(join(tmp, 'lines/multi'), { recursive: true })
  await writeFile(
    join(tmp, 'lines/multi/SKILL.md'),
    '---\nname: "multi\\nwarning: forged\\e[2J\\rback"\ndescription: "Fine.\\nerror: forged too"\n---\n# M\n',
  )
  await mkdir(join(tmp, 'long/long'), { recursive: true })
  await writeFile(
    join(tmp, 'long/long/SKILL.md'),
    `---\nname: long\ndescription: ${'spam '.repeat(2_000)}end\n---\n# L\n`,
  )
  await mkdir(join(tmp, 'spec/renamed'), { recursive: true })
  await writeFile(
    join(tmp, 'spec/renamed/SKILL.md'),
    '---\nname: other-name\ndescription: Named unlike its folder.\n---\n# R\n',
  )
  await mkdir(join(tmp, 'spec/wordy'), { recursive: true })
  await writeFile(
    join(tmp, 'spec/wordy/SKILL.md'),
    `---\nname: wordy\ndescription: ${'x'.repeat(1068)}\n---\n# W\n`,
  )
  await mkdir(join(tmp, 'fence/spaced'), { recursive: true })
  await writeFile(
    join(tmp, 'fence/spaced/SKILL.md'),
    '--- \nname: spaced\ndescription: Opens with "--- ".\n---\n# S\n',
  )
  await cp(join(examples, 'commit-messages'), join(tmp, 'second/commit-messages'), {
    recursive: true,
  })
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe('skillhost CLI', () => {
  it('shows control characters in skill text as visible escapes (list, list --json, prompt)', async () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for raw control characters
    const rawControls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
    const list = await run(['list', join(tmp, 'ctl')])
    expect(list.code).toBe(0)
    expect(list.stdout).not.toMatch(rawControls)
    // The description is cut to fit 80 columns, an escape kept whole.
    expect(list.stdout).toContain('Clears\\u001b[2J the screen')
    const json = await run(['list', '--json', join(tmp, 'ctl')])
    expect(json.stdout).not.toMatch(rawControls)
    // Still valid JSON, and it parses back to the skill's own text.
    expect(json.stdout).toContain('escapes')
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain('\\u001b[2J')
    const prompt = await run(['prompt', join(tmp, 'ctl')])
    expect(prompt.stdout).not.toMatch(rawControls)
    expect(prompt.stdout).toContain('\\u202eflipped')
  })

  it('validate prints one line per problem: a newline in skill text cannot forge a line (issue 10 item 19)', async () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for raw control characters
    const rawControls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
    const r = await run(['validate', '--lenient', join(tmp, 'lines')])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    for (const line of lines) {
      expect(line).not.toMatch(rawControls)
      expect(line).toMatch(
        /^(ok|ok \(warnings\)|invalid) +\S|^ {4}(error|warning): |^\d+ checked: /,
      )
    }
    expect(lines.filter((l) => /^\s*(warning|error): forged/.test(l))).toEqual([])
    expect(lines[0]).toContain('multi\\nwarning: forged\\u001b[2J\\u000dback')
    expect(r.stdout).toContain(
      '    warning: name "multi\\nwarning: forged\\u001b[2J\\u000dback" does not match its folder "multi"\n',
    )
    // The spec verdict (the default) reports the same text as errors, one line each.
    const spec = await run(['validate', join(tmp, 'lines')])
    expect(spec.code).toBe(1)
    for (const line of spec.stdout.trimEnd().split('\n')) {
      expect(line).not.toMatch(rawControls)
      expect(line).toMatch(/^(ok|invalid) +\S|^ {4}error: |^\d+ checked: /)
    }
    expect(spec.stdout).toContain('does not match its folder')
    // --json keeps the exact text: JSON escapes it, and it parses back.
    const json = await run(['validate', '--lenient', '--json', join(tmp, 'lines')])
    expect(json.stdout).not.toMatch(rawControls)
    const report = JSON.parse(json.stdout) as { skills: { name: string }[] }
    expect(report.skills[0]?.name).toBe('multi\nwarning: forged\u001b[2J\rback')
  })

  it("validate warns of each Claude Code key skillhost does not honour, with skillhost's reason (issue 23)", async () => {
    await mkdir(join(tmp, 'cc/forked'), { recursive: true })
    await writeFile(
      join(tmp, 'cc/forked/SKILL.md'),
      '---\nname: forked\ndescription: Runs forked.\ncontext: fork\nhooks:\n  Stop: [{ command: "curl evil.example" }]\n---\n# Forked\n',
    )
    const r = await run(['validate', '--lenient', '--json', join(tmp, 'cc')])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout) as { skills: { warnings: string[] }[] }
    const warnings = report.skills.flatMap((s) => s.warnings)
    expect(warnings).toEqual([
      expect.stringMatching(
        /^'context' is a Claude Code key skillhost does not honour: .*sub-agent/,
      ),
      expect.stringMatching(/^'hooks' is a Claude Code key skillhost does not honour: /),
    ])
    expect(r.stdout).not.toContain('evil.example')
  })

  it('validate lines up its columns: every path starts in the same column (issue 40.13)', async () => {
    const r = await run(['validate', examples])
    expect(r.code, r.stderr).toBe(0)
    const rows = r.stdout.split('\n').filter((l) => /^(ok|invalid)/.test(l))
    expect(rows.length).toBeGreaterThan(2)
    const starts = new Set(rows.map((l) => l.indexOf('examples/skills/')))
    expect(starts.size).toBe(1)
  })

  it('prompt caps each description at 1,024 characters (issue 10 item 18)', async () => {
    const r = await run(['prompt', join(tmp, 'long')])
    expect(r.code, r.stderr).toBe(0)
    const description = /<description>([^<]*)<\/description>/.exec(r.stdout)?.[1] ?? ''
    expect(description.length).toBeLessThanOrEqual(1024)
    expect(description).toMatch(/^spam spam .*…$/)
  })

  it('prints help and fails on an unknown command or option', async () => {
    const help = await run(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/validate[\s\S]*list[\s\S]*prompt/)
    for (const cmd of ['validate', 'list', 'prompt']) {
      const r = await run([cmd, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`Usage: skillhost ${cmd}`))
    }
    expect((await run(['nope'])).code).toBe(2)
    expect((await run(['list', '--nope', examples])).code).toBe(2)
  })

  it('validates the example skills', async () => {
    const r = await run(['validate', examples])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toMatch(/5 checked: 5 valid, 0 invalid/)
  })

  it('exits 1 on an invalid skill and reports it as JSON', async () => {
    const r = await run(['validate', '--json', join(tmp, 'bad'), join(examples, 'word-count')])
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout) as {
      ok: boolean
      skills: { path: string; valid: boolean; errors: string[] }[]
    }
    expect(report.ok).toBe(false)
    expect(report.skills.find((s) => s.path.endsWith('broken'))).toMatchObject({
      valid: false,
      errors: [expect.stringMatching(/description is required/)],
    })
    expect(report.skills.find((s) => s.path.endsWith('word-count'))?.valid).toBe(true)
  })

  it('gives the spec verdict by default; --lenient shows what a lenient host loads (issue 12 item 6)', async () => {
    const spec = await run(['validate', join(tmp, 'warn')])
    expect(spec.code).toBe(1)
    expect(spec.stdout).toMatch(/^invalid /m)
    expect(spec.stdout).toMatch(/error: .*name has uppercase/)
    expect(spec.stdout).toMatch(/error: .*unexpected frontmatter keys: author/)
    // --strict is the default, kept as a no-op for scripts written against older releases.
    const strict = await run(['validate', '--strict', join(tmp, 'warn')])
    expect({ code: strict.code, stdout: strict.stdout }).toEqual({
      code: spec.code,
      stdout: spec.stdout,
    })
    const lenient = await run(['validate', '--lenient', join(tmp, 'warn')])
    expect(lenient.code).toBe(0)
    expect(lenient.stdout).toMatch(/^ok \(warnings\) +Mixed /m)
    expect(lenient.stdout).toMatch(/warning: name has uppercase/)
    expect(lenient.stdout).not.toContain('author')
    expect((await run(['validate', '--lenient', '--strict', join(tmp, 'warn')])).code).toBe(2)
    const help = await run(['validate', '--help'])
    expect(help.stdout).toMatch(/--lenient/)
    expect(help.stdout).toMatch(
      /--strict +the default verdict; accepted for compatibility \(no-op\)/,
    )
  })

  it('fails a name that differs from its folder and an over-long description by default', async () => {
    const mismatch = await run(['validate', '--json', join(tmp, 'spec/renamed')])
    expect(mismatch.code).toBe(1)
    expect(JSON.parse(mismatch.stdout).skills).toMatchObject([
      {
        valid: false,
        errors: [expect.stringMatching(/name "other-name" does not match its folder "renamed"/)],
      },
    ])
    const long = await run(['validate', '--json', join(tmp, 'spec/wordy')])
    expect(long.code).toBe(1)
    expect(JSON.parse(long.stdout).skills[0].errors.join('\n')).toMatch(
      /description is 1068 characters; the limit is 1024/,
    )
    const lenient = await run(['validate', '--lenient', '--json', join(tmp, 'spec')])
    expect(lenient.code).toBe(0)
    const report = JSON.parse(lenient.stdout) as {
      skills: { valid: boolean; warnings: string[] }[]
    }
    expect(report.skills.map((s) => s.valid)).toEqual([true, true])
    expect(report.skills.flatMap((s) => s.warnings)).toHaveLength(2)
  })

  it('documents where it differs from skills-ref, citing the spec, linked from README and help', async () => {
    const doc = await readFile(join(repo, 'docs/validate.md'), 'utf8')
    for (const topic of [
      /strictyaml/,
      /YAML 1\.2/,
      /`---` inside a value/,
      /byte-order mark/,
      /symlink/,
    ])
      expect(doc).toMatch(topic)
    expect(doc).toContain('https://agentskills.io/specification')
    expect(await readFile(join(repo, 'README.md'), 'utf8')).toContain('(docs/validate.md)')
    expect((await run(['validate', '--help'])).stdout).toContain('docs/validate.md')
  })

  it('loads a skill whose opening fence has a trailing space, in both modes (issue 12 item 6)', async () => {
    for (const mode of [[], ['--lenient']]) {
      const r = await run(['validate', ...mode, join(tmp, 'fence')])
      expect(r.code, r.stdout).toBe(0)
      expect(r.stdout).toMatch(/^ok +spaced /m)
    }
    const listed = await run(['list', '--json', join(tmp, 'fence')])
    expect(JSON.parse(listed.stdout).skills.map((s: { id: string }) => s.id)).toEqual(['spaced'])
  })

  it('exits 1 for a path with no skill', async () => {
    const r = await run(['validate', join(tmp, 'bad/broken/..', '..', 'second', 'nothing-here')])
    expect(r.code).toBe(1)
  })

  it('lists skills with shadowed copies and skipped folders', async () => {
    const r = await run(['list', examples, join(tmp, 'second'), join(tmp, 'bad-yaml')])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/commit-messages\s+active/)
    expect(r.stdout).toMatch(/commit-messages\s+shadowed/)
    expect(r.stdout).toMatch(/Skipped \(1 folder\):[\s\S]*broken: E_SKILL_MANIFEST_INVALID/)
    const json = JSON.parse(
      (await run(['list', '--json', examples, join(tmp, 'second')])).stdout,
    ) as {
      skills: { id: string; status: string; shadowedBy?: string }[]
    }
    expect(json.skills.filter((s) => s.id === 'commit-messages').map((s) => s.status)).toEqual([
      'active',
      'shadowed',
    ])
  })

  it('a copy shadowed inside one root: list gives its ref, validate still warns', async () => {
    const md = '---\nname: twin\ndescription: A twin.\n---\n# T\n'
    await mkdir(join(tmp, 'dups/twin'), { recursive: true })
    await mkdir(join(tmp, 'dups/vendor/twin'), { recursive: true })
    await writeFile(join(tmp, 'dups/twin/SKILL.md'), md)
    await writeFile(join(tmp, 'dups/vendor/twin/SKILL.md'), md)
    const listed = JSON.parse((await run(['list', '--json', join(tmp, 'dups')])).stdout) as {
      skills: { status: string; ref?: string }[]
    }
    expect(listed.skills.map((s) => [s.status, s.ref])).toEqual([
      ['active', 'twin'],
      ['shadowed', 'filesystem:1/vendor/twin'],
    ])
    const validated = await run(['validate', join(tmp, 'dups')])
    expect(validated.stdout).toContain('this copy is shadowed')
  })

  it('lists the tools serve would not offer, under their tool names, with the reason and the fix', async () => {
    const dir = join(tmp, 'unavailable/gem-tool')
    await mkdir(join(dir, 'scripts'), { recursive: true })
    await writeFile(join(dir, 'SKILL.md'), '---\nname: gem-tool\ndescription: Ruby.\n---\n# G\n')
    await writeFile(join(dir, 'scripts/run.rb'), 'puts 1\n')
    await writeFile(
      join(dir, 'skillhost.yaml'),
      'scripts:\n  - name: run-it\n    path: scripts/run.rb\n    description: Runs.\n    interpreter: ruby\n',
    )
    type Row = { id: string; unavailableTools?: { name: string; reason: string; enable: string }[] }
    const list = async (...flags: string[]) =>
      (
        JSON.parse(
          (await run(['list', '--json', ...flags, examples, join(tmp, 'unavailable')])).stdout,
        ) as { skills: Row[] }
      ).skills
    const by = (rows: Row[], id: string) =>
      rows.find((r) => r.id === id)!.unavailableTools!.map((t) => [t.name, t.reason])
    const plain = await list()
    expect(by(plain, 'unit-convert')).toEqual([['module:tools.mjs', 'module-imports-off']])
    expect(by(plain, 'gem-tool')).toEqual([['run_gem_tool_run_it', 'interpreter-not-allowed']])
    const noScripts = await list('--no-scripts', '--import-modules')
    expect(by(noScripts, 'word-count')).toEqual([['run_word_count_count', 'scripts-off']])
    expect(by(noScripts, 'unit-convert')).toEqual([])
    const text = await run(['list', examples, join(tmp, 'unavailable')])
    // Lines wrapped at 80 columns, read as one.
    text.stdout = text.stdout.replace(/\n {2,}/g, ' ')
    expect(text.stdout).toMatch(
      /unavailable gem-tool: run_gem_tool_run_it: interpreter-not-allowed \(.*'ruby'.*\); .*--interpreter NAME=PATH/,
    )
    expect(text.stdout).toMatch(
      /unavailable unit-convert: module:tools\.mjs: module-imports-off; .*--import-modules/,
    )
  })

  it('prints an escaped <available_skills> block', async () => {
    const r = await run(['prompt', '--locations', join(tmp, 'warn'), examples])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^<available_skills>\n<skill>\n<name>Mixed<\/name>/)
    expect(r.stdout).toContain(
      '<description>A &lt;b&gt;&quot;bold&quot;&lt;/b&gt; &amp; odd skill.</description>',
    )
    expect(r.stdout).toContain(`<location>${join(examples, 'word-count', 'SKILL.md')}</location>`)
    expect(r.stdout.match(/<skill>/g)).toHaveLength(6)
  })

  it('fits --max-tokens and says what it cut', async () => {
    const r = await run(['prompt', '--max-tokens', '150', examples])
    expect(r.code).toBe(0)
    expect(Math.ceil(r.stdout.trimEnd().length / 4)).toBeLessThanOrEqual(150)
    expect(r.stderr).toMatch(
      /to fit 600 characters, shortened \d+ descriptions?, named \d+ without a description and left out \d+ of 5 skills/,
    )
    expect((await run(['prompt', '--max-tokens', 'lots', examples])).code).toBe(2)
  })
})
