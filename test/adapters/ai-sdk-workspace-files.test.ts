import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateText, stepCountIs } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSkillTools,
  SkillToolCallError,
  type SkillToolOutput,
  type SkillToolOutputWithFiles,
  skillToolModelOutput,
} from '../../src/adapters/ai-sdk/index.js'
import { WORKSPACE_EMBED_MAX_BYTES } from '../../src/common/workspace-files-out.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { makeRig, onLinux, type Rig } from '../helpers/sandbox.js'
import {
  type ModelCall,
  recordingStep,
  scriptedModel,
  toolResults,
} from '../helpers/scripted-model.js'

// Issue 36 item 1, the AI SDK's shape: a tool output carries the workspace
// files the call read or wrote (`workspaceFiles`: path, size, media type,
// base64 bytes when small); the model sees the tool's own text.

const INPUT = Buffer.from([0xef, 0xbb, 0xbf, 0x41, 0x00, 0xff, 0x0d, 0x0a])
const OUTPUT = Buffer.concat([INPUT, INPUT, Buffer.from([0xff, 0x00])])

function binarySkill(base: string): string {
  const dir = join(base, 'skills', 'bin-double')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  writeFileSync(
    join(dir, 'SKILL.md'),
    '---\nname: bin-double\ndescription: Doubles in.bin.\n---\n# bin-double\n',
  )
  writeFileSync(
    join(dir, 'skillhost.yaml'),
    'scripts:\n  - name: double\n    path: scripts/double.sh\n    description: Doubles in.bin.\n    interpreter: sh\n  - name: half_done\n    path: scripts/half.sh\n    description: Writes part.bin, then fails.\n    interpreter: sh\n',
  )
  // Makes its output, then fails: the output is the user's to see all the same.
  writeFileSync(
    join(dir, 'scripts', 'half.sh'),
    "cat in.bin > part.bin\nprintf '\\377' >> part.bin\necho 'half done' >&2\nexit 4\n",
  )
  writeFileSync(
    join(dir, 'scripts', 'double.sh'),
    "set -eu\ncat in.bin in.bin > out.bin\nprintf '\\377\\000' >> out.bin\n",
  )
  return join(base, 'skills')
}

describe.skipIf(!onLinux)('AI SDK adapter: workspace files in tool outputs', () => {
  let rig: Rig
  let manager: SkillManager
  beforeAll(async () => {
    rig = await makeRig()
    manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [binarySkill(rig.base)] })],
      gate: async () => undefined,
      scripts: rig.config,
    })
  })
  afterAll(async () => {
    await manager?.dispose()
    await rig?.cleanup()
  })

  const run = async (
    tools: ReturnType<typeof createSkillTools>['tools'],
    name: string,
    args: unknown,
  ): Promise<SkillToolOutput> => {
    const tool = tools[name]
    if (!tool?.execute) throw new Error(`no tool ${name}`)
    return (await tool.execute(args, { toolCallId: name, messages: [] })) as SkillToolOutput
  }
  const withFiles = (o: SkillToolOutput): SkillToolOutputWithFiles => {
    if (typeof o === 'string' || Array.isArray(o)) throw new Error(`no files: ${String(o)}`)
    return o as SkillToolOutputWithFiles
  }

  it('workspace_write, a script, workspace_read: each output carries the exact bytes; the model sees text', async () => {
    const ctx = manager.createTurnContext()
    const skills = createSkillTools({ manager, ctx })
    const wrote = withFiles(
      await run(skills.tools, 'workspace_write', {
        path: 'in.bin',
        content: INPUT.toString('base64'),
        encoding: 'base64',
      }),
    )
    expect(wrote.workspaceFiles).toEqual([
      {
        path: 'in.bin',
        change: 'written',
        size: INPUT.length,
        mediaType: 'application/octet-stream',
        data: INPUT.toString('base64'),
      },
    ])
    expect(skillToolModelOutput(wrote)).toEqual({ type: 'text', value: wrote.output })

    await run(skills.tools, 'load_skill', { skill: 'bin-double' })
    const ran = withFiles(await run(skills.tools, 'run_bin_double_double', {}))
    const out = ran.workspaceFiles.find((f) => f.path === 'out.bin')
    expect(out?.change).toBe('written')
    expect(Buffer.from(out?.data ?? '', 'base64').equals(OUTPUT)).toBe(true)
    expect(String(ran.output)).toContain('out.bin')

    const read = withFiles(await run(skills.tools, 'workspace_read', { path: 'out.bin' }))
    expect(read.workspaceFiles[0]).toMatchObject({
      path: 'out.bin',
      change: 'read',
      size: OUTPUT.length,
    })
    expect(Buffer.from(read.workspaceFiles[0]?.data ?? '', 'base64').equals(OUTPUT)).toBe(true)
    skills.dispose()
  })

  it('a failed script call carries the files it wrote (SkillToolCallError.workspaceFiles) through the real AI SDK; the model sees the error text alone', async () => {
    const ctx = manager.createTurnContext()
    const skills = createSkillTools({ manager, ctx })
    const calls: ModelCall[] = []
    const step = recordingStep(calls)
    const model = scriptedModel([
      step([
        {
          tool: 'workspace_write',
          args: { path: 'in.bin', content: INPUT.toString('base64'), encoding: 'base64' },
        },
        { tool: 'load_skill', args: { skill: 'bin-double' } },
      ]),
      step([{ tool: 'run_bin_double_half_done', args: {} }]),
      step('done'),
    ])
    const result = await generateText({
      model,
      tools: skills.tools,
      prepareStep: skills.prepareStep,
      prompt: 'Make part.bin.',
      stopWhen: stepCountIs(5),
    })
    expect(result.text).toBe('done')
    const failed = result.steps[1]?.content.find((p) => p.type === 'tool-error')
    if (failed?.type !== 'tool-error') throw new Error('no tool error')
    expect(failed.toolName).toBe('run_bin_double_half_done')
    const error = failed.error
    expect(error).toBeInstanceOf(SkillToolCallError)
    if (!(error instanceof SkillToolCallError)) throw new Error('not a SkillToolCallError')
    // The shape a successful call's files have: path, change, size, media type, exact bytes.
    const part = Buffer.concat([INPUT, Buffer.from([0xff])])
    expect(error.workspaceFiles).toEqual([
      {
        path: 'part.bin',
        change: 'written',
        size: part.length,
        mediaType: 'application/octet-stream',
        data: part.toString('base64'),
      },
    ])
    expect(error.moreWorkspaceFiles).toBeUndefined()
    // The model gets the error's text, never the files' bytes.
    const seen = toolResults(calls[2] as ModelCall).find(
      (r) => r.tool === 'run_bin_double_half_done',
    )
    expect(seen?.type).toBe('error-text')
    expect(seen?.text).toBe(error.message)
    expect(seen?.text).not.toContain(part.toString('base64'))
    // A failure that touched no file carries none.
    const unknown = await skills.tools.read_skill_file
      ?.execute?.({ skill: 'nope', path: 'x' }, { toolCallId: 'x', messages: [] })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(unknown).toBeInstanceOf(SkillToolCallError)
    expect((unknown as SkillToolCallError).workspaceFiles).toEqual([])
    skills.dispose()
  })

  it('a file past the embedding bound is named with its size, without bytes; a call touching no file is plain', async () => {
    const ctx = manager.createTurnContext()
    const skills = createSkillTools({ manager, ctx })
    const big = Buffer.alloc(WORKSPACE_EMBED_MAX_BYTES + 1, 7)
    const wrote = withFiles(
      await run(skills.tools, 'workspace_write', {
        path: 'big.bin',
        content: big.toString('base64'),
        encoding: 'base64',
      }),
    )
    expect(wrote.workspaceFiles).toEqual([
      {
        path: 'big.bin',
        change: 'written',
        size: big.length,
        mediaType: 'application/octet-stream',
      },
    ])
    expect(typeof (await run(skills.tools, 'list_skills', {}))).toBe('string')
    skills.dispose()
  })
})
