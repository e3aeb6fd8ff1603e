import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/spawn-serve.js'

// `demo --root DIR` (issue 26.4): the scripted model works from the catalog
// it finds in DIR, not from the bundled examples' conversation.

function demo(extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env }
  delete env.OPENAI_API_KEY
  delete env.ANTHROPIC_API_KEY
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['dist/cli/main.js', 'demo', ...extra],
      { cwd: ROOT, env },
      (_e, out, err) => resolve({ code: child.exitCode, stdout: out, stderr: err }),
    )
  })
}

let tmp = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-demo-root-'))
  const skills = join(tmp, 'skills')
  // An instructions-only skill first, then one with a script that answers --help.
  await mkdir(join(skills, 'a-notes'), { recursive: true })
  await writeFile(
    join(skills, 'a-notes/SKILL.md'),
    '---\nname: a-notes\ndescription: How to take notes.\n---\nWrite short notes.\n',
  )
  await mkdir(join(skills, 'b-greeter/scripts'), { recursive: true })
  await writeFile(
    join(skills, 'b-greeter/SKILL.md'),
    '---\nname: b-greeter\ndescription: Greets people by name.\n---\nRun scripts/greet.sh NAME.\n',
  )
  await writeFile(
    join(skills, 'b-greeter/scripts/greet.sh'),
    '#!/bin/sh\nif [ "$1" = --help ]; then echo "usage: greet.sh NAME"; exit 0; fi\necho "hello $1"\n',
  )
  await mkdir(join(tmp, 'empty'))
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe('skillhost demo --root DIR (built binary, no API key)', () => {
  it.skipIf(process.platform !== 'linux')(
    "lists DIR's skills, loads one, runs its script with --help in the sandbox, unloads it, and says so",
    async () => {
      const { code, stdout, stderr } = await demo(['--root', join(tmp, 'skills')])
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
      expect(stdout).toContain('→ list_skills {}')
      expect(stdout).toContain('→ load_skill {"skill":"a-notes"}')
      expect(stdout).toContain('→ unload_skill {"skill":"a-notes"}')
      expect(stdout).toContain('→ load_skill {"skill":"b-greeter"}')
      expect(stdout).toContain(
        '→ run_b_greeter_script {"script":"scripts/greet.sh","args":["--help"]}',
      )
      expect(stdout).toMatch(/← run_b_greeter_script: exit code 0;/)
      expect(stdout).toContain('→ unload_skill {"skill":"b-greeter"}')
      // None of the bundled examples' conversation.
      expect(stdout).not.toMatch(/unit-convert|word-count|application\.txt/)
      const answer = /^assistant: (.*)$/m.exec(stdout)?.[1]
      expect(answer).toContain('list_skills found 2 skills.')
      expect(answer).toContain('a-notes has no harmless sample: it adds no tools.')
      expect(answer).toContain(
        'I ran scripts/greet.sh --help in the sandbox (run_b_greeter_script): exit code 0; it printed "usage: greet.sh NAME".',
      )
      expect(answer).toContain('Unloaded b-greeter.')
      expect(stdout).toContain('after the run: loaded [], projected []')
    },
  )

  it('with scripts off, loads and unloads but claims no run, and says why', async () => {
    const { code, stdout } = await demo(['--root', join(tmp, 'skills'), '--no-scripts'])
    expect(code).toBe(0)
    const answer = /^assistant: (.*)$/m.exec(stdout)?.[1]
    expect(answer).toContain('Loaded b-greeter')
    expect(answer).toContain('b-greeter has no harmless sample: it adds no tools')
    expect(answer).not.toContain('I ran')
    expect(answer).toContain('Unloaded b-greeter.')
  })

  it('exits 1 when no skill loads', async () => {
    const { code, stdout, stderr } = await demo(['--root', join(tmp, 'empty'), '--no-scripts'])
    expect(code).toBe(1)
    expect(stdout).toMatch(
      /^assistant: list_skills found 0 skills\. No skill loaded, so nothing was run\.$/m,
    )
    expect(stderr).toContain('no skill loaded')
  })
})
