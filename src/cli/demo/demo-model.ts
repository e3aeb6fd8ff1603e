import type { LanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { payload, type Results, resultsOf, say, toolCall, whyMissing } from './demo-mock.js'

/** The model the demo talks to, and how to introduce it. */
export interface DemoModel {
  readonly model: LanguageModel
  readonly label: string
  readonly scripted: boolean
}

/** One planned move of the scripted model: a tool call, taken only when its tool is offered. */
interface PlannedCall {
  readonly tool: string
  readonly args: (
    results: readonly { tool: string; text: string }[],
  ) => Record<string, unknown> | undefined
}

/** The workspace file the demo host received from the user, and what the model makes of it. */
export const DEMO_FORM = 'application.txt'
const FILLED = 'application-filled.txt'
const FORM_RUN = 'run_form_fill_script'
/** The values the user gave in the prompt, by the form's field names; the branch is not among them. */
const FORM_VALUES: Readonly<Record<string, string>> = {
  full_name: 'Ada Lovelace',
  birth_date: '1815-12-10',
  email: 'ada@example.org',
  signature: 'Ada Lovelace',
  signed_on: '2024-05-01',
}

/** The latest result of `tool` whose text includes `marker`. */
const lastResult = (results: Results, tool: string, marker: string): string | undefined =>
  results.filter((r) => r.tool === tool && r.text.includes(marker)).at(-1)?.text

/** The id of the spooled copy a script result names for a workspace file. */
const copyOf = (text: string | undefined, file: string): string | undefined =>
  text &&
  new RegExp(
    `created ${file.replace(/[.]/g, '\\.')} \\(\\d+ bytes\\), copy: (r_[0-9a-f]{16})`,
  ).exec(text)?.[1]

/** The fields workspace_read showed of fields.json (its text follows the first line). */
function formFields(results: Results): { name: string; label: string }[] | undefined {
  const read = lastResult(results, 'workspace_read', '/work/fields.json')
  if (read === undefined) return undefined
  try {
    return JSON.parse(read.slice(read.indexOf('\n') + 1)) as { name: string; label: string }[]
  } catch {
    return undefined
  }
}

const script = (path: string, ...args: string[]) => ({ script: `scripts/${path}`, args })

// The document step, as form-fill's SKILL.md tells it: extract the fields,
// read them, write values.json, fill, verify; each call only once the one
// before it did its part.
const FORM_PLAN: readonly PlannedCall[] = [
  { tool: 'load_skill', args: () => ({ skill: 'form-fill' }) },
  { tool: FORM_RUN, args: () => script('extract_fields.py', DEMO_FORM, 'fields.json') },
  {
    tool: 'workspace_read',
    args: (results) =>
      copyOf(lastResult(results, FORM_RUN, 'fields written'), 'fields.json')
        ? { path: 'fields.json' }
        : undefined,
  },
  {
    tool: 'workspace_write',
    args: (results) => {
      const fields = formFields(results)
      if (!fields) return undefined
      const values = Object.fromEntries(
        fields
          .filter((f) => FORM_VALUES[f.name] !== undefined)
          .map((f) => [f.name, FORM_VALUES[f.name]]),
      )
      return { path: 'values.json', content: JSON.stringify(values, null, 2) }
    },
  },
  {
    tool: FORM_RUN,
    args: (results) =>
      results.some((r) => r.tool === 'workspace_write' && r.text.includes('values.json'))
        ? script('fill_fields.py', DEMO_FORM, 'values.json', FILLED)
        : undefined,
  },
  {
    tool: FORM_RUN,
    args: (results) =>
      copyOf(lastResult(results, FORM_RUN, 'filled '), FILLED)
        ? script('verify_fields.py', DEMO_FORM, FILLED)
        : undefined,
  },
  { tool: 'unload_skill', args: () => ({ skill: 'form-fill' }) },
]

/** Part (4) of the answer: what verify_fields.py reported, and the blanks left open by label. */
function formAnswer(results: Results, offered: ReadonlySet<string>): string {
  const verified = lastResult(results, FORM_RUN, 'fields filled')
  const counted = verified && /(\d+) of (\d+) fields filled/.exec(verified)
  if (!verified || !counted)
    return `unknown: the form was not filled: ${whyMissing(results, 'form-fill', FORM_RUN, offered, 'scripts or undeclared scripts are off on this host')}`
  const empty = [...verified.matchAll(/^(\w+): \(empty\)$/gm)].map((m) => m[1])
  const labels = formFields(results) ?? []
  const open = empty.map((name) => labels.find((f) => f.name === name)?.label ?? name)
  return `${FILLED}: ${counted[1]} of ${counted[2]} fields filled${open.length ? `; still empty: ${open.join(', ')} (you did not give it)` : ''}`
}

const BEFORE = { name: 'api', replicas: 2, ports: [80], tls: false }
const AFTER = { name: 'api', replicas: 3, ports: [80, 443], tls: true }

/** The conversion's retrievable id, as its spooled result names it. */
const conversionId = (results: readonly { tool: string; text: string }[]): string | undefined => {
  const converted = results.find((r) => r.tool === 'convert_units')
  return converted && /\[result (r_[0-9a-f]{16})\b/.exec(converted.text)?.[1]
}

// Each skill is loaded only while it is needed: one per tier, then the
// earlier result is re-read by id after every skill is gone.
const PLAN: readonly PlannedCall[] = [
  { tool: 'list_skills', args: () => ({}) },
  { tool: 'load_skill', args: () => ({ skill: 'unit-convert' }) },
  { tool: 'convert_units', args: () => ({ value: 26.2, from: 'mi', to: 'km' }) },
  { tool: 'unload_skill', args: () => ({ skill: 'unit-convert' }) },
  { tool: 'load_skill', args: () => ({ skill: 'json-tools' }) },
  { tool: 'json_diff', args: () => ({ before: BEFORE, after: AFTER }) },
  { tool: 'unload_skill', args: () => ({ skill: 'json-tools' }) },
  { tool: 'load_skill', args: () => ({ skill: 'word-count' }) },
  { tool: 'run_word_count_count', args: () => ({ file: 'samples/sample.txt', top: 3 }) },
  { tool: 'unload_skill', args: () => ({ skill: 'word-count' }) },
  ...FORM_PLAN,
  {
    tool: 'artifact_cat',
    args: (results) => {
      const ack = results.find((r) => r.tool === 'run_word_count_count')?.text
      const id = ack && /output: (r_[0-9a-f]{16})/.exec(ack)?.[1]
      return id ? { id } : undefined
    },
  },
  {
    tool: 'artifact_cat',
    args: (results) => (conversionId(results) ? { id: conversionId(results) } : undefined),
  },
  {
    tool: 'artifact_cat',
    args: (results) => {
      const id = copyOf(lastResult(results, FORM_RUN, 'filled '), FILLED)
      return id ? { id } : undefined
    },
  },
]

/** The closing answer, from what the tools returned. */
function answer(results: Results, offered: ReadonlySet<string>): string {
  const of = (tool: string) => payload(results.find((r) => r.tool === tool)?.text)
  const diff = of('json_diff')?.split('\n').join(', ')
  const scriptOutput = results
    .filter((r) => r.tool === 'artifact_cat')
    .map((r) => payload(r.text) ?? '')
  const topWords = scriptOutput
    .find((t) => t.includes('words:'))
    ?.split('\n')
    .filter((l) => /^\d+ \S+$/.test(l.trim()))
    .map((l) => l.trim().split(' ')[1])
  const parts = [
    `(1) ${of('convert_units') ?? 'unknown: unit-convert was not offered'}`,
    `(2) ${diff ?? 'unknown: json-tools was not offered'}`,
    `(3) ${topWords?.length ? topWords.join(', ') : `unknown: ${whyMissing(results, 'word-count', 'run_word_count_count', offered, 'scripts are off on this host')}`}`,
    `(4) ${formAnswer(results, offered)}`,
  ]
  return `${parts.join(' ')}. Each skill was unloaded after use; the results were re-read by id afterwards.`
}

/**
 * A scripted stand-in for a model, built on the AI SDK's own mock. It plays
 * one plan across all three tiers — a module tool (unit-convert), an isolated
 * tool (json-tools), a sandboxed script (word-count) — then a document step:
 * form-fill's undeclared scripts on the user's form in the workspace (extract,
 * workspace_write, fill, verify). It loads each skill only while it is
 * needed, then re-reads earlier results by id. A planned call
 * whose tool is not offered (say, scripts off) is skipped, as a model would.
 */
export function scriptedDemoModel(): MockLanguageModelV3 {
  let next = 0
  // Every tool offered at any step: the answer says why a tool gave nothing.
  const offeredEver = new Set<string>()
  return new MockLanguageModelV3({
    provider: 'skillhost-demo',
    modelId: 'scripted',
    doGenerate: async (call) => {
      const results = resultsOf(call)
      const offered = new Set((call.tools ?? []).map((t) => t.name))
      for (const name of offered) offeredEver.add(name)
      while (next < PLAN.length) {
        const planned = PLAN[next++]!
        const args = offered.has(planned.tool) ? planned.args(results) : undefined
        if (args) return toolCall(planned.tool, args)
      }
      return say(answer(results, offeredEver))
    },
  })
}

/**
 * The demo's model: OpenAI when `OPENAI_API_KEY` is set, else Anthropic when
 * `ANTHROPIC_API_KEY` is, else `scripted()` (default: the examples' plan). Providers load lazily.
 */
export async function pickDemoModel(
  env: NodeJS.ProcessEnv,
  modelId?: string,
  scripted: () => MockLanguageModelV3 = scriptedDemoModel,
): Promise<DemoModel> {
  if (env.OPENAI_API_KEY) {
    const { openai } = await import('@ai-sdk/openai')
    const id = modelId ?? 'gpt-4.1-mini'
    return { model: openai(id), label: `OpenAI ${id}`, scripted: false }
  }
  if (env.ANTHROPIC_API_KEY) {
    const { anthropic } = await import('@ai-sdk/anthropic')
    const id = modelId ?? 'claude-haiku-4-5'
    return { model: anthropic(id), label: `Anthropic ${id}`, scripted: false }
  }
  return { model: scripted(), label: 'SCRIPTED MODEL (no API key found)', scripted: true }
}
