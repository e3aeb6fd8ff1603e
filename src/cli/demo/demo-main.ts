import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateText, stepCountIs } from 'ai'
import { createSkillTools, renderProjectedSkills } from '../../adapters/ai-sdk/index.js'
import {
  estimateTokens,
  renderAvailableSkills,
  type SkillManager,
  type TurnContext,
} from '../../index.js'
import { createPolicyGate, gatePolicyFor } from '../serve/serve-gate.js'
import { SERVE_DEFAULT_CHANNEL } from '../serve/serve-options.js'
import { createServeRuntime } from '../serve/serve-runtime.js'
import type { CliIo } from '../shared/cli-command.js'
import { parseArgs } from '../shared/parse-args.js'
import { plural } from '../shared/plural.js'
import { UNUSABLE_ROOT_STATUS, usableRoots } from '../shared/usable-roots.js'
import { CATALOG_PROMPT, catalogDemoModel } from './demo-catalog-model.js'
import { DEMO_FORM, type DemoModel, pickDemoModel } from './demo-model.js'

const PROMPT =
  'Four questions. (1) How many kilometres is a marathon (26.2 miles)? (2) What changed between the config ' +
  '{"name":"api","replicas":2,"ports":[80],"tls":false} and {"name":"api","replicas":3,"ports":[80,443],"tls":true}? ' +
  "(3) What are the three most frequent words in the word-count skill's samples/sample.txt? " +
  `(4) Please fill in the library card application I sent you (${DEMO_FORM}, in your workspace) for me: ` +
  'Ada Lovelace, born 1815-12-10, ada@example.org; sign it with my name and date it 2024-05-01. Use the ' +
  'skills available: list them, load each one only while you need it and unload it as soon as you are ' +
  'done, then re-read your conversion result and the filled form by their ids with artifact_cat, and ' +
  'answer briefly.'

/** The user's file, as the host received it with the message: a text form with [[field]] blanks. */
const APPLICATION = [
  'LIBRARY CARD APPLICATION',
  '',
  'Full name: [[full_name]]',
  'Date of birth (YYYY-MM-DD): [[birth_date]]',
  'Email: [[email]]',
  'Preferred branch: [[branch]]',
  '',
  'Signed: [[signature]]   Date: [[signed_on]]',
  '',
].join('\n')

const SYSTEM = 'You are a careful assistant. Prefer skills and tools over guessing.'

const clip = (text: string, max = 160): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}… (${flat.length} chars)` : flat
}

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))

/** What the demo says about importing module code, so a run over another folder is never mistaken for the examples. */
function demoImportsNote(rootGiven: boolean, importModules: boolean): string {
  if (!rootGiven) return 'the bundled examples; module imports on'
  return importModules
    ? 'module imports ON (--import-modules): its module code runs in this process'
    : 'module imports off: its module tools are not offered; --import-modules runs its module code in this process'
}

/**
 * Runs the demo conversation through the AI SDK against `examples/skills`
 * (or `--root`), printing each step: the tools offered, the context the
 * skills cost, every gate decision, tool call and (truncated) result.
 */
export async function runDemo(argv: readonly string[], io: CliIo, help: string): Promise<number> {
  const args = parseArgs(argv, {
    strings: ['root', 'model'],
    booleans: ['no-scripts', 'no-undeclared-scripts', 'import-modules'],
  })
  if (args.booleans.help) {
    io.stdout(`${help}\n`)
    return 0
  }
  const out = (line = ''): void => io.stdout(`${line}\n`)
  const given = args.strings.root
  const root = given
    ? resolve(given)
    : fileURLToPath(new URL('../../../examples/skills', import.meta.url))
  // Module tools run in this process: the bundled examples are ours; a folder
  // given with --root is imported only when --import-modules says so.
  const importModules = given === undefined || args.booleans['import-modules'] === true
  if (given !== undefined && usableRoots([root], io, 'demo').unusable.length > 0)
    return UNUSABLE_ROOT_STATUS
  // Over the user's skills the conversation is about whatever the catalog holds.
  const prompt = given ? CATALOG_PROMPT : PROMPT
  const picked = await pickDemoModel(
    process.env,
    args.strings.model,
    given ? catalogDemoModel : undefined,
  )
  out(`skillhost demo: ${picked.label}`)
  out(`skills: ${root} (${demoImportsNote(given !== undefined, importModules)})`)
  out('token figures below are estimates: characters / 4')

  const stateDir = await mkdtemp(join(tmpdir(), 'skillhost-demo-'))
  const runtime = await createServeRuntime({
    roots: [root],
    stateDir,
    importModules,
    scripts: args.booleans['no-scripts'] !== true,
    undeclaredScripts: args.booleans['no-undeclared-scripts'] !== true,
    gate: createPolicyGate(gatePolicyFor('allow-all'), (line) => out(`    ${line}`)),
    log: (line) => out(`(${line})`),
    defaultChannel: SERVE_DEFAULT_CHANNEL,
  })
  const manager = await runtime.createManager()
  try {
    return await converse({ manager, model: picked.model, prompt, overExamples: !given, io, out })
  } finally {
    await manager.dispose()
    await runtime.dispose()
    await rm(stateDir, { recursive: true, force: true })
  }
}

/** One demo conversation's parts: the manager over the skills, the model, what the user asks. */
interface DemoConversation {
  readonly manager: SkillManager
  readonly model: DemoModel['model']
  readonly prompt: string
  /** Over the bundled examples, the host hands the model the user's form. */
  readonly overExamples: boolean
  readonly io: CliIo
  readonly out: (line?: string) => void
}

/**
 * The conversation, printed: the host's file put into the workspace, the
 * catalog's cost, the model's run, and what stayed after it. Exit 1 when no
 * skill ever loaded: a demo that showed nothing must not read as success.
 */
async function converse(demo: DemoConversation): Promise<number> {
  const { manager, out } = demo
  // The host puts the user's file into the conversation's workspace (/work), where scripts run.
  const workspace = manager.workspace
  if (workspace && demo.overExamples) {
    await workspace.put(DEMO_FORM, APPLICATION)
    out(
      `workspace: ${DEMO_FORM} put in by the host (${APPLICATION.length} bytes), at /work for scripts`,
    )
  }
  const ctx = manager.createTurnContext()
  const skills = createSkillTools({ manager, ctx, system: SYSTEM, catalog: true })
  const catalogTokens = renderAvailableSkills(
    manager
      .search()
      .entries.flatMap((e) =>
        e.shadowedBy === undefined ? [{ name: e.id, description: e.description }] : [],
      ),
  ).estimatedTokens
  out(
    `catalog: ${plural(manager.catalog().entries.filter((e) => e.shadowedBy === undefined).length, 'skill')}, ≈${catalogTokens} tokens in the system prompt`,
  )
  out()
  out(`user: ${demo.prompt}`)
  const { text, loadedAny } = await runModel(demo, ctx, skills, catalogTokens)
  out()
  out(`assistant: ${text}`)
  out(
    `after the run: loaded ${JSON.stringify(manager.loaded())}, projected ${JSON.stringify(manager.projected(ctx))}`,
  )
  if (workspace) {
    const files = (await workspace.list()).filter((e) => e.kind === 'file')
    const listed = files.map((f) => `${f.path} (${f.size} bytes)`).join(', ')
    out(`workspace after the run: ${listed || 'empty'}`)
  }
  out(
    `system prompt now carries ≈${estimateTokens(renderProjectedSkills(ctx.retrievables.all()))} tokens of skill bodies`,
  )
  skills.dispose()
  if (!loadedAny) {
    demo.io.stderr('skillhost demo: no skill loaded; see the load_skill results above\n')
    return 1
  }
  return 0
}

/**
 * The model's run over the skill tools, each step printed: the tools
 * offered and what the context costs, every call and its (clipped) result.
 * `loadedAny`: some load_skill call left a skill projected.
 */
async function runModel(
  demo: DemoConversation,
  ctx: TurnContext,
  skills: ReturnType<typeof createSkillTools>,
  catalogTokens: number,
): Promise<{ text: string; loadedAny: boolean }> {
  const { manager, out } = demo
  const started = new Set<string>()
  let loadedAny = false
  const result = await generateText({
    model: demo.model,
    tools: skills.tools,
    stopWhen: stepCountIs(24),
    prompt: demo.prompt,
    prepareStep: async (options) => {
      const step = await skills.prepareStep(options)
      const active = step?.activeTools ?? []
      const defs = active.map((name) => ctx.tools.get(name)).filter((t) => t !== undefined)
      const defTokens = estimateTokens(
        JSON.stringify(defs.map((t) => [t.name, t.description, t.jsonSchema])),
      )
      const bodyTokens = estimateTokens(renderProjectedSkills(ctx.retrievables.all()))
      out()
      out(
        `── step ${options.stepNumber + 1} ─ offered ${active.length} tools: ${active.join(', ')}`,
      )
      out(
        `   context: tool definitions ≈${defTokens} tok · catalog ≈${catalogTokens} tok · loaded skill bodies ≈${bodyTokens} tok (${manager.projected(ctx).join(', ') || 'none loaded'})`,
      )
      return step
    },
    experimental_onToolCallStart: ({ toolCall }) => {
      started.add(toolCall.toolCallId)
      out(`  → ${toolCall.toolName} ${clip(show(toolCall.input), 120)}`)
    },
    experimental_onToolCallFinish: (event) => {
      const name = event.toolCall.toolName
      if (name === 'load_skill' && event.success && manager.projected(ctx).length > 0)
        loadedAny = true
      out(
        event.success
          ? `  ← ${name}: ${clip(show(modelOutput(event.output)))}`
          : `  ✗ ${name}: ${clip(show((event.error as Error)?.message))}`,
      )
    },
    onStepFinish: (step) => {
      for (const part of step.content) {
        if (part.type === 'tool-error' && !started.has(part.toolCallId)) {
          out(
            `  ✗ ${part.toolName} (not offered): ${clip(show((part.error as Error)?.message ?? part.error))}`,
          )
        }
      }
      // The last step's text is the answer, printed once as `assistant:`.
      if (step.text && step.toolCalls.length > 0) out(`  model: ${step.text}`)
    },
  })
  return { text: result.text, loadedAny }
}

/**
 * What the model sees of a tool's output: a call that touched workspace
 * files resolves to `{ output, workspaceFiles }` for the host, and the model
 * sees `output` alone (`SkillToolOutputWithFiles`).
 */
function modelOutput(output: unknown): unknown {
  const withFiles = output as { output?: unknown; workspaceFiles?: unknown } | null
  return typeof withFiles === 'object' && withFiles !== null && 'workspaceFiles' in withFiles
    ? withFiles.output
    : output
}
