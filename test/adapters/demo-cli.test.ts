import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

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

describe('skillhost demo (built binary, no API key)', () => {
  it('runs the scripted conversation: each tier loaded, called, unloaded; results re-read by id', async () => {
    const { code, stdout, stderr } = await demo(['--no-scripts'])
    // On failure, show what the process said.
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(stdout).toContain('SCRIPTED MODEL (no API key found)')
    expect(stdout).toContain('estimates: characters / 4')
    expect(stdout).toMatch(
      /^skills: .*examples\/skills \(the bundled examples; module imports on\)$/m,
    )
    const steps = stdout.split('── step ').slice(1)
    expect(steps[0]).not.toContain('convert_units')
    expect(steps[2]).toMatch(/offered \d+ tools: .*convert_units/)
    expect(steps[2]).toMatch(/loaded skill bodies ≈[1-9]\d* tok \(unit-convert\)/)
    expect(steps[2]).toContain('gate allow convert_units (module, skill unit-convert@')
    expect(steps[4]).not.toMatch(/offered .*convert_units/)
    expect(steps[4]).toContain('loaded skill bodies ≈0 tok (none loaded)')
    const diffStep = steps.find((s) => s.includes('→ json_diff'))
    expect(diffStep).toContain('gate allow json_diff (isolated, skill json-tools@')
    expect(diffStep).toMatch(/← json_diff: .*replicas: 2 -> 3/)
    // Scripts are off: the script tools are reported unavailable, never offered, and the
    // document step says so instead of making up an answer.
    expect(stdout).not.toMatch(/offered \d+ tools: .*run_word_count_count/)
    expect(stdout).not.toMatch(/offered \d+ tools: .*run_form_fill_script/)
    expect(stdout).not.toContain('workspace:')
    // The answer says what happened, in the host's words: never "scripts are off" when they are on.
    expect(stdout).toContain(
      '(3) unknown: run_word_count_count was not offered (scripts off on this host)',
    )
    expect(stdout).toContain(
      '(4) unknown: the form was not filled: run_form_fill_script was not offered',
    )
    const reread = steps.find((s) => /← artifact_cat: .*26\.2 mi = 42\.1648 km/.test(s))
    expect(reread).toContain('loaded skill bodies ≈0 tok (none loaded)')
    expect(reread).not.toMatch(/offered .*(convert_units|json_diff)/)
    expect(stdout).toContain('after the run: loaded [], projected []')
    // The final answer is printed once, as the assistant's, not also as a step's text.
    expect(stdout.split('(1) 26.2 mi = 42.1648 km (2)')).toHaveLength(2)
    expect(stdout).toMatch(/^assistant: \(1\) 26\.2 mi/m)
  })

  it.skipIf(process.platform !== 'linux')(
    '--no-undeclared-scripts keeps declared script tools and drops run_<skill>_script',
    async () => {
      const { code, stdout, stderr } = await demo(['--no-undeclared-scripts'])
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
      expect(stdout).toMatch(/offered .*run_word_count_count/)
      expect(stdout).not.toMatch(/offered \d+ tools: .*run_form_fill_script/)
      expect(stdout).toContain('(4) unknown: the form was not filled')
    },
  )

  it.skipIf(process.platform !== 'linux')(
    'runs the script tier in the sandbox and re-reads its output by id',
    async () => {
      const { code, stdout, stderr } = await demo([])
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
      const steps = stdout.split('── step ').slice(1)
      const scriptStep = steps.find((s) => s.includes('→ run_word_count_count'))
      expect(scriptStep).toContain('gate allow run_word_count_count (script, skill word-count@')
      // The output is inline (a preview) and kept whole by id.
      expect(scriptStep).toMatch(
        /← run_word_count_count: exit code 0; \d+ bytes of output; full output: r_/,
      )
      expect(scriptStep).toMatch(/--- stdout --- lines: \d+ words: \d+/)
      expect(stdout).toMatch(/← artifact_cat: .*words: \d+/)
      expect(stdout).toMatch(/assistant: \(1\) 26\.2 mi = 42\.1648 km .*\(3\) \w+, \w+, \w+ \(4\)/)
    },
  )

  it.skipIf(process.platform !== 'linux')(
    'runs a document step: the host puts the user’s form in the workspace, the model extracts, writes values, fills and verifies it',
    async () => {
      const { code, stdout, stderr } = await demo([])
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
      expect(stdout).toMatch(/^workspace: application\.txt put in by the host \(\d+ bytes\)/m)
      const steps = stdout.split('── step ').slice(1)
      const step = (call: string) => {
        const found = steps.find((s) => s.includes(`→ ${call}`))
        expect(found, `a step calls ${call}`).toBeDefined()
        return found as string
      }
      // form-fill ships no sidecar: its scripts run through run_form_fill_script once it is loaded.
      expect(step('load_skill {"skill":"form-fill"}')).toMatch(
        /"toolsAdded": \[ "run_form_fill_script" \]/,
      )
      const extract = step('run_form_fill_script {"script":"scripts/extract_fields.py"')
      expect(extract).toMatch(/loaded skill bodies ≈[1-9]\d* tok \(form-fill\)/)
      expect(extract).toContain('gate allow run_form_fill_script (script, skill form-fill@')
      expect(extract).toContain('--- stdout --- 6 fields written to fields.json')
      expect(step('workspace_read {"path":"fields.json"}')).toContain(
        'gate allow workspace_read (workspace)',
      )
      const write = step('workspace_write {"path":"values.json"')
      expect(write).toMatch(/← workspace_write: wrote \/work\/values\.json \(\d+ bytes\)/)
      expect(step('run_form_fill_script {"script":"scripts/fill_fields.py"')).toContain(
        'filled 5 fields into application-filled.txt',
      )
      expect(step('run_form_fill_script {"script":"scripts/verify_fields.py"')).toContain(
        '--- stdout --- full_name: Ada Lovelace birth_date: 1815-12-10',
      )
      // After unload, the filled form is re-read by the copy id its fill call named.
      const reread = steps.find((s) => /← artifact_cat: .*LIBRARY CARD APPLICATION/.test(s))
      expect(reread).toContain('loaded skill bodies ≈0 tok (none loaded)')
      expect(reread).toContain('Full name: Ada Lovelace')
      expect(reread).not.toMatch(/offered .*run_form_fill_script/)
      expect(stdout).toMatch(
        /assistant: .*\(4\) application-filled\.txt: 5 of 6 fields filled; still empty: Preferred branch/,
      )
      // Every file the step made is in the workspace: the form, its fields, the values, the filled form.
      expect(stdout).toMatch(
        /^workspace after the run: application-filled\.txt \(\d+ bytes\), application\.txt \(\d+ bytes\), fields\.json \(\d+ bytes\), values\.json \(\d+ bytes\)$/m,
      )
    },
  )

  it('demo --root DIR imports no module code from DIR unless --import-modules, and says which (issue 12 item 9)', async () => {
    // Inside the package, so the copy's `import … from 'skillhost'` resolves.
    const dir = await mkdtemp(join(ROOT, '.demo-root-'))
    try {
      await cp(join(ROOT, 'examples/skills'), join(dir, 'skills'), { recursive: true })
      // Written outside the skill: a change inside it would make it a new version.
      const marker = join(dir, 'imported.txt')
      await appendFile(
        join(dir, 'skills/unit-convert/tools.mjs'),
        "\nimport { writeFileSync } from 'node:fs'\nwriteFileSync(new URL('../../imported.txt', import.meta.url), 'imported')\n",
      )
      const off = await demo(['--root', join(dir, 'skills'), '--no-scripts'])
      expect({ code: off.code, stderr: off.stderr }).toEqual({ code: 0, stderr: '' })
      expect(off.stdout).toMatch(/^skills: .*\(module imports off: .*--import-modules/m)
      expect(off.stdout).not.toMatch(/offered .*convert_units/)
      expect(existsSync(marker)).toBe(false)

      const on = await demo(['--no-scripts', '--import-modules', '--root', join(dir, 'skills')])
      expect({ code: on.code, stderr: on.stderr }).toEqual({ code: 0, stderr: '' })
      expect(on.stdout).toMatch(/^skills: .*\(module imports ON \(--import-modules\)/m)
      expect(on.stdout).toMatch(/offered .*convert_units/)
      expect(existsSync(marker)).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
