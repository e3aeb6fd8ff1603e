import { execFile } from 'node:child_process'
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
    // Scripts are off: the script tool is reported unavailable, never offered.
    expect(stdout).not.toMatch(/offered .*run_word_count_count/)
    const reread = steps.find((s) => /← artifact_cat: .*26\.2 mi = 42\.1648 km/.test(s))
    expect(reread).toContain('loaded skill bodies ≈0 tok (none loaded)')
    expect(reread).not.toMatch(/offered .*(convert_units|json_diff)/)
    expect(stdout).toContain('after the run: loaded [], projected []')
  })

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
      expect(stdout).toMatch(/assistant: \(1\) 26\.2 mi = 42\.1648 km .*\(3\) \w+, \w+, \w+\./)
    },
  )
})
