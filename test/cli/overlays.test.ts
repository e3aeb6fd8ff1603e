import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listCommand } from '../../src/cli/list/list-command.js'
import { runCommand } from '../../src/cli/run/run-command.js'
import { parseServeOptions } from '../../src/cli/serve/serve-options.js'
import type { CliCommand } from '../../src/cli/shared/cli-command.js'
import { UsageError } from '../../src/cli/shared/parse-args.js'
import { validateCommand } from '../../src/cli/validate/validate-command.js'
import {
  PDF_FORM_SKILL,
  pypdfPython,
  REAL_SKILLS_OVERLAYS,
  REAL_SKILLS_ROOT,
} from '../helpers/pdf-form-fixture.js'

async function call(command: CliCommand, argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await command.run(argv, {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
  })
  return { code, stdout, stderr }
}

let tmp = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-overlays-cli-'))
  await cp(REAL_SKILLS_OVERLAYS, join(tmp, 'good'), { recursive: true })
  await mkdir(join(tmp, 'bad/pdf-form'), { recursive: true })
  await writeFile(
    join(tmp, 'bad/pdf-form/skillhost.yaml'),
    'scripts:\n  - { name: x, path: ../../etc/passwd, description: X., interpreter: python }\n',
  )
  await mkdir(join(tmp, 'orphans/not-here'), { recursive: true })
  await writeFile(join(tmp, 'orphans/not-here/skillhost.yaml'), 'scripts: []\n')
  await mkdir(join(tmp, 'orphans/broken-orphan'), { recursive: true })
  await writeFile(join(tmp, 'orphans/broken-orphan/skillhost.yaml'), 'scripts: 3\n')
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe('--overlays on the CLI', () => {
  it('validate: a good overlay is valid; a bad one makes the skill invalid with the same validator', async () => {
    const good = await call(validateCommand, [
      '--json',
      '--overlays',
      join(tmp, 'good'),
      REAL_SKILLS_ROOT,
    ])
    expect(good.code, good.stdout).toBe(0)
    expect(JSON.parse(good.stdout).skills).toMatchObject([
      { name: 'pdf-form', valid: true, errors: [] },
    ])

    const bad = await call(validateCommand, ['--overlays', join(tmp, 'bad'), REAL_SKILLS_ROOT])
    expect(bad.code).toBe(1)
    expect(bad.stdout).toMatch(/invalid +- /)
    expect(bad.stdout).toContain(
      'error: overlay skillhost.yaml is invalid: scripts[0].path The skill path "../../etc/passwd" is rejected: it traverses to a parent directory.',
    )
  })

  it('validate: the first overlay directory wins, and overlays for skills not given are parsed too', async () => {
    const first = await call(validateCommand, [
      '--overlays',
      join(tmp, 'good'),
      `--overlays=${join(tmp, 'bad')}`,
      REAL_SKILLS_ROOT,
    ])
    expect(first.code, first.stdout).toBe(0)

    const orphans = await call(validateCommand, [
      '--json',
      '--overlays',
      join(tmp, 'orphans'),
      REAL_SKILLS_ROOT,
    ])
    expect(orphans.code).toBe(1)
    const skills = JSON.parse(orphans.stdout).skills
    expect(skills).toMatchObject([
      { name: 'pdf-form', valid: true },
      {
        name: 'broken-orphan',
        valid: false,
        errors: [expect.stringMatching(/scripts must be a list/)],
      },
      { name: 'not-here', valid: true, warnings: [expect.stringMatching(/no skill "not-here"/)] },
    ])
  })

  it('list: overlays change the version, and a missing directory is a usage error', async () => {
    const plain = JSON.parse((await call(listCommand, ['--json', REAL_SKILLS_ROOT])).stdout)
    const over = JSON.parse(
      (await call(listCommand, ['--json', '--overlays', join(tmp, 'good'), REAL_SKILLS_ROOT]))
        .stdout,
    )
    expect(over.skills[0].id).toBe('pdf-form')
    expect(over.skills[0].version).not.toBe(plain.skills[0].version)
    await expect(
      call(listCommand, ['--overlays', join(tmp, 'nope'), REAL_SKILLS_ROOT]),
    ).rejects.toThrow(UsageError)
    await expect(call(listCommand, ['--overlays'])).rejects.toThrow(/--overlays needs a value/)
  })

  it('serve: --overlays repeats, in order, as absolute paths', () => {
    const options = parseServeOptions([
      '--overlays',
      join(tmp, 'good'),
      '--overlays',
      join(tmp, 'orphans'),
      '--no-scripts',
      REAL_SKILLS_ROOT,
    ])
    expect(options.overlays).toEqual([join(tmp, 'good'), join(tmp, 'orphans')])
    expect(parseServeOptions([REAL_SKILLS_ROOT]).overlays).toEqual([])
    expect(() => parseServeOptions(['--overlays', join(tmp, 'nope'), REAL_SKILLS_ROOT])).toThrow(
      /is not a directory/,
    )
  })

  it.skipIf(process.platform !== 'linux')(
    'run: an overlay-declared script runs in the sandbox, importing its sibling module and pypdf',
    async () => {
      expect(pypdfPython(), 'install python3-pypdf (scripts/test.sh does)').toBe('/usr/bin/python3')
      const none = await call(runCommand, [PDF_FORM_SKILL, 'verify_fields', 'out.pdf'])
      expect(none.code).toBe(64)
      expect(none.stderr).toMatch(/declares no script 'verify_fields' \(scripts: none\)/)

      // The sandbox's working directory is fresh: the script gets as far as
      // opening the file, so both imports worked.
      const r = await call(runCommand, [
        PDF_FORM_SKILL,
        'verify_fields',
        '--overlays',
        REAL_SKILLS_OVERLAYS,
        '--interpreter',
        'python3=/usr/bin/python3',
        'out.pdf',
      ])
      expect(r.stderr).toBe('error: out.pdf does not exist; put the PDF in the current directory\n')
      expect(r.code).toBe(1)
    },
  )
})
