import { afterEach, describe, expect, it, vi } from 'vitest'
import { callLogRecords } from '../../src/adapters/mcp/call-log-records.js'
import { type SendProgress, trackProgress } from '../../src/adapters/mcp/progress.js'
import { SkillHostError } from '../../src/common/errors.js'
import { Tool } from '../../src/common/tool.js'

afterEach(() => {
  vi.useRealTimers()
})

type Sent = Parameters<SendProgress>[0]['params']

function recorder(fail = false): { send: SendProgress; sent: Sent[] } {
  const sent: Sent[] = []
  return {
    sent,
    send: async (n) => {
      sent.push(n.params)
      if (fail) throw new Error('stream closed')
    },
  }
}

describe('trackProgress', () => {
  it('reports started, running on every interval, then finished with total; strictly increasing', async () => {
    vi.useFakeTimers()
    const { send, sent } = recorder()
    const progress = trackProgress('t1', send, 1000)
    await vi.advanceTimersByTimeAsync(2500)
    await progress.finish(true)
    // A second finish sends nothing more, and the timer is gone.
    await progress.finish(false)
    await vi.advanceTimersByTimeAsync(5000)
    expect(sent).toEqual([
      { progressToken: 't1', progress: 0, message: 'started' },
      { progressToken: 't1', progress: 1, message: 'running' },
      { progressToken: 't1', progress: 2, message: 'running' },
      { progressToken: 't1', progress: 3, total: 3, message: 'finished' },
    ])
  })

  it('ends with failed for a failed call, and a send that throws fails nothing', async () => {
    const { send, sent } = recorder(true)
    const progress = trackProgress(7, send, 60_000)
    await expect(progress.finish(false)).resolves.toBeUndefined()
    expect(sent.map((p) => [p.progress, p.message])).toEqual([
      [0, 'started'],
      [1, 'failed'],
    ])
  })

  it('sends nothing without a token', async () => {
    vi.useFakeTimers()
    const { send, sent } = recorder()
    const progress = trackProgress(undefined, send, 10)
    await vi.advanceTimersByTimeAsync(100)
    await progress.finish(true)
    expect(sent).toEqual([])
  })
})

const scriptTool = new Tool({
  name: 'run_pdf_fill',
  description: 'x',
  inputSchema: { type: 'object', properties: {} },
  meta: { tier: 'script', skill: 'pdf\nforged', skillVersion: 'v1' },
  handler: () => '',
})
const fail = (code: 'E_SKILL_SCRIPT_TIMEOUT', message = 'x') =>
  ({ ok: false, error: new SkillHostError(code, message) }) as const

describe('callLogRecords', () => {
  it('an unavailable gate is an error record; a host tool outside the gate logs nothing when it completes', () => {
    const err = new SkillHostError('E_TOOL_GATE_UNAVAILABLE', 'gate down')
    expect(callLogRecords(undefined, 'convert', true, { ok: false, error: err })).toEqual([
      {
        level: 'error',
        logger: 'skillhost.gate',
        data: {
          event: 'gate',
          decision: 'unavailable',
          tool: 'convert',
          code: 'E_TOOL_GATE_UNAVAILABLE',
        },
      },
    ])
    expect(callLogRecords(undefined, 'mine', false, { ok: true })).toEqual([])
  })

  it('a script killed at its deadline, growing past the workspace cap or cancelled: a warning naming why, never the message', () => {
    const deadline = callLogRecords(
      scriptTool,
      scriptTool.name,
      true,
      fail('E_SKILL_SCRIPT_TIMEOUT'),
    )
    expect(deadline).toEqual([
      {
        level: 'warning',
        logger: 'skillhost.script',
        data: {
          event: 'script-exit',
          tool: 'run_pdf_fill',
          tier: 'script',
          // The skill id is one escaped line, whatever a source let through.
          skill: 'pdf\\nforged',
          skillVersion: 'v1',
          ok: false,
          killed: 'deadline',
        },
      },
    ])
    const full = new SkillHostError('E_SKILL_WORKSPACE_FULL', 'output: secret text')
    const cancelled = new SkillHostError('E_ABORTED', 'aborted')
    const other = new Error('cannot open /home/alice/x')
    const ends = [full, cancelled, other].map((error) =>
      callLogRecords(scriptTool, scriptTool.name, true, { ok: false, error }),
    )
    expect(ends.map((r) => r.map((x) => x.data))).toEqual([
      [expect.objectContaining({ ok: false, killed: 'workspace-full' })],
      [expect.objectContaining({ ok: false, cancelled: true })],
      // Not a script end skillhost can name: nothing is said.
      [],
    ])
    expect(JSON.stringify(ends)).not.toContain('secret text')
  })
})
