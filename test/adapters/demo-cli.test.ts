import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

describe('skillhost demo (built binary, no API key)', () => {
  it('runs the scripted conversation: load, call, unload, re-read by id', async () => {
    const env = { ...process.env }
    delete env.OPENAI_API_KEY
    delete env.ANTHROPIC_API_KEY
    const { code, stdout, stderr } = await new Promise<{
      code: number | null
      stdout: string
      stderr: string
    }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['dist/cli/main.js', 'demo', '--no-scripts'],
        { cwd: ROOT, env },
        (_e, out, err) => resolve({ code: child.exitCode, stdout: out, stderr: err }),
      )
    })
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
    expect(steps[4]).toMatch(/← artifact_cat: .*26\.2 mi = 42\.1648 km/)
    expect(stdout).toContain('after the run: loaded [], projected []')
  })
})
