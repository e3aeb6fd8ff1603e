import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { fillablePdf, SAMPLE_FORM } from '../helpers/fillable-pdf.js'
import {
  PDF_FORM_SKILL,
  pypdfPython,
  REAL_SKILLS_OVERLAYS,
  REAL_SKILLS_ROOT,
} from '../helpers/pdf-form-fixture.js'
import { discover } from '../helpers/skill-tree.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs one of the fixture's scripts with host python in `cwd`, as a user's shell would. */
function script(python: string, cwd: string, name: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      python,
      [join(PDF_FORM_SKILL, 'scripts', name), ...args],
      // No bytecode: the fixture folder stays exactly as committed.
      { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

describe('the pdf-form fixture skill', () => {
  it('ships what a public document skill ships, and no skillhost.yaml', async () => {
    expect(existsSync(join(PDF_FORM_SKILL, 'skillhost.yaml'))).toBe(false)
    const body = await readFile(join(PDF_FORM_SKILL, 'SKILL.md'), 'utf8')
    for (const pointer of [
      'python scripts/extract_fields.py input.pdf fields.json',
      'python scripts/fill_fields.py input.pdf values.json out.pdf',
      'python scripts/verify_fields.py out.pdf',
      '(forms.md)',
      '(reference/api.md)',
    ])
      expect(body).toContain(pointer)
    expect((await readdir(join(PDF_FORM_SKILL, 'scripts'))).sort()).toEqual([
      'extract_fields.py',
      'fill_fields.py',
      'pdf_common.py',
      'verify_fields.py',
    ])
  })

  it.skipIf(process.platform !== 'linux')(
    'works with plain host python: extract, write values, fill, verify',
    async () => {
      const python = pypdfPython()
      expect(
        python,
        'install pypdf: apt-get install python3-pypdf (scripts/test.sh does)',
      ).toBeDefined()
      const cwd = await mkdtemp(join(tmpdir(), 'skillhost-pdf-form-'))
      dirs.push(cwd)
      await writeFile(join(cwd, 'input.pdf'), fillablePdf(SAMPLE_FORM))

      const extract = await script(python!, cwd, 'extract_fields.py', ['input.pdf', 'fields.json'])
      expect(extract, extract.stderr).toMatchObject({
        code: 0,
        stdout: '2 fields written to fields.json\n',
      })
      const fields = JSON.parse(await readFile(join(cwd, 'fields.json'), 'utf8'))
      expect(fields).toEqual([
        { name: 'full_name', type: 'text', label: 'Full name', page: 1, value: '' },
        { name: 'signed_on', type: 'text', label: 'Date signed', page: 1, value: '' },
      ])

      // What the model writes between the calls.
      await writeFile(
        join(cwd, 'values.json'),
        JSON.stringify({ full_name: 'Ada Lovelace', signed_on: '2024-05-01' }),
      )
      const fill = await script(python!, cwd, 'fill_fields.py', [
        'input.pdf',
        'values.json',
        'out.pdf',
      ])
      expect(fill, fill.stderr).toMatchObject({ code: 0, stdout: 'filled 2 fields into out.pdf\n' })
      expect((await readFile(join(cwd, 'out.pdf'))).subarray(0, 5).toString()).toBe('%PDF-')

      const verify = await script(python!, cwd, 'verify_fields.py', ['out.pdf'])
      expect(verify, verify.stderr).toMatchObject({
        code: 0,
        stdout: 'full_name: Ada Lovelace\nsigned_on: 2024-05-01\n2 of 2 fields filled\n',
      })
      // The input is untouched: verify on it shows the empty form.
      const before = await script(python!, cwd, 'verify_fields.py', ['input.pdf'])
      expect(before.stdout).toContain('full_name: (empty)')

      // Mistakes a model makes get one `error:` line and exit 2.
      await writeFile(join(cwd, 'bad.json'), JSON.stringify({ fullname: 'Ada' }))
      const bad = await script(python!, cwd, 'fill_fields.py', ['input.pdf', 'bad.json', 'x.pdf'])
      expect(bad).toMatchObject({ code: 2 })
      expect(bad.stderr).toBe('error: no such fields: fullname (fields: full_name, signed_on)\n')
      const missing = await script(python!, cwd, 'extract_fields.py', ['nope.pdf', 'f.json'])
      expect(missing.code).toBe(1)
      expect(missing.stderr).toMatch(/nope\.pdf does not exist/)
      expect(existsSync(join(cwd, 'x.pdf'))).toBe(false)
    },
  )

  it('declares no tools alone; with the deployer overlay, the three typed scripts', async () => {
    const bare = new FileSystemSkillSource({ roots: REAL_SKILLS_ROOT })
    const [skill] = (await discover(bare)).skills
    expect(skill?.id).toBe('pdf-form')
    expect((await bare.descriptor(skill!)).scripts).toBeUndefined()

    const overlaid = new FileSystemSkillSource({
      roots: REAL_SKILLS_ROOT,
      overlays: [REAL_SKILLS_OVERLAYS],
    })
    const { skills, problems } = await discover(overlaid)
    expect(problems).toEqual([])
    expect(skills[0]?.warnings).toBeUndefined()
    expect(skills[0]?.version).not.toBe(skill?.version)
    const d = await overlaid.descriptor(skills[0]!)
    expect(
      d.scripts?.map((s) => [s.name, s.path, s.interpreter, s.params?.map((p) => p.name)]),
    ).toEqual([
      ['extract_fields', 'scripts/extract_fields.py', 'python', ['input', 'output']],
      ['fill_fields', 'scripts/fill_fields.py', 'python', ['input', 'values', 'output']],
      ['verify_fields', 'scripts/verify_fields.py', 'python', ['input']],
    ])
    expect(d.scripts?.every((s) => s.params?.every((p) => p.positional && p.required))).toBe(true)
    // The skill's own files, for the model to read; the overlay is not one of them.
    expect(await overlaid.list(skills[0]!)).toEqual([
      'forms.md',
      'reference/api.md',
      'scripts/extract_fields.py',
      'scripts/fill_fields.py',
      'scripts/pdf_common.py',
      'scripts/verify_fields.py',
    ])
  })
})
