import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPAN_ATTRIBUTE, traced } from '../../../src/common/tracing.js'
import {
  createScriptSandbox,
  type ScriptSandbox,
  scriptInterpreters,
} from '../../../src/tiers/scripts/index.js'
import { runSkillScript } from '../../../src/tiers/scripts/internal.js'
import { buildProbeWheel, probePep723 } from '../../helpers/probe-wheel.js'
import { files, onLinux, script } from '../../helpers/sandbox.js'
import { cacheWithInstaller } from '../../helpers/shared-installer.js'

// Issue 41 item 3: an environment build this process runs is one
// `skillhost.provision` span, a child of the call waiting on it; a cached
// environment is no build and no span.
const PYTHON = scriptInterpreters().python3?.[0]
const PEP723 = probePep723('import skillhost_probe_pkg', '')

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

describe.skipIf(!onLinux || PYTHON === undefined)('the provisioning span', () => {
  let dir: string
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider)
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    dir = mkdtempSync(join(tmpdir(), 'skillhost-provision-span-'))
    const wheels = join(dir, 'wheels')
    execFileSync('mkdir', [wheels])
    buildProbeWheel(PYTHON as string, wheels)
    // With the run's pip installer in it: the subject is the set's build span.
    const cacheDir = await cacheWithInstaller(join(dir, 'envs'), PYTHON as string)
    sandbox = await createScriptSandbox({ provision: { cacheDir, index: { findLinks: wheels } } })
  }, 120_000)
  afterAll(async () => {
    await sandbox?.dispose()
    await provider.shutdown()
    trace.disable()
    context.disable()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Runs the PEP 723 script under a parent span, as a script call would. */
  async function runUnderParent(): Promise<void> {
    const { workspace } = sandbox.config
    const root = await workspace.materialize(
      { id: 'deps', version: '1' },
      files({ 'p.py': PEP723 }),
    )
    try {
      const r = await traced('skillhost.script_call', { skillId: 'deps' }, () =>
        runSkillScript(sandbox.config, {
          skill: 'deps',
          root,
          script: script({ path: 'p.py', interpreter: 'python3' }),
          args: {},
        }),
      )
      expect(r.stderr).toBe('')
    } finally {
      await workspace.dispose(root)
    }
  }

  it('one span per build, under the call; none when the environment is cached', async () => {
    await runUnderParent()
    const builds = exporter.getFinishedSpans().filter((s) => s.name === 'skillhost.provision')
    expect(builds).toHaveLength(1)
    const call = exporter.getFinishedSpans().find((s) => s.name === 'skillhost.script_call')
    expect(builds[0]?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId)
    expect(builds[0]?.attributes).toEqual({
      [SPAN_ATTRIBUTE.count]: 1,
      [SPAN_ATTRIBUTE.outcome]: 'ok',
    })
    exporter.reset()
    await runUnderParent()
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['skillhost.script_call'])
  }, 120_000)
})
