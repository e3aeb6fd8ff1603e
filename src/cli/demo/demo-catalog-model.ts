import { MockLanguageModelV3 } from 'ai/test'
import { payload, resultsOf, say, toolCall } from './demo-mock.js'

// `demo --root DIR` without an API key: a scripted model that knows nothing
// of the skills beforehand. It plays list → load → one safe sample call →
// unload over whatever list_skills returns, and its answer reports what
// each step returned.

/** How many catalog rows the model tries before it says nothing would load. */
const MAX_LOAD_ATTEMPTS = 5

/** Script files a `--help` run makes sense for: the interpreters tier 3 knows. */
const SCRIPT_FILE = /^scripts\/[^/]+\.(py|sh|bash|js|mjs|cjs)$/

/** The user's message for this conversation. */
export const CATALOG_PROMPT =
  'Show me what the skills in this folder can do: list them, load one, try one of its tools ' +
  'or scripts on a harmless sample (a --help run is fine), unload it, and tell me briefly what happened.'

interface Loaded {
  readonly id: string
  readonly version?: string
  readonly toolsAdded: readonly string[]
  readonly toolsUnavailable?: readonly { name?: string; reason?: string }[]
  readonly files: readonly { path: string }[]
  readonly filesTotal?: number
}

/** A JSON object from a tool result's text, or undefined (an error message, say). */
function parsed<T>(text: string | undefined): T | undefined {
  const body = payload(text)
  if (body === undefined) return undefined
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === 'object' && value !== null ? (value as T) : undefined
  } catch {
    return undefined
  }
}

/** The first line of a result, cut to fit a sentence. */
const firstLine = (text: string | undefined): string =>
  ((payload(text) ?? '').trim().split('\n')[0] ?? '').slice(0, 200).replace(/\.$/, '')

/** A script call's outcome in a clause: its status, and the first line it printed. */
function sampleSummary(text: string | undefined): string {
  const status = firstLine(text).split(';')[0] || '(no result)'
  const printed = /--- (?:stdout|end of stderr)[^\n]*---\s*\n\s*([^\n]*)/.exec(payload(text) ?? '')
  const line = printed?.[1]?.trim()
  return line ? `${status}; it printed "${line.slice(0, 120)}"` : status
}

const loadedOf = (r: { tool: string; text: string }): Loaded | undefined => {
  if (r.tool !== 'load_skill') return undefined
  const value = parsed<Loaded>(r.text)
  return value && Array.isArray(value.toolsAdded) ? value : undefined
}

/** The tool call that samples `skill` safely, or why there is none. */
function sampleCall(
  skill: Loaded,
  offered: ReadonlyMap<string, { required: readonly string[] }>,
): { tool: string; args: Record<string, unknown>; what: string } | { none: string } {
  const runner = skill.toolsAdded.find((n) => /^run_.+_script$/.test(n) && offered.has(n))
  const file = skill.files.map((f) => f.path).find((p) => SCRIPT_FILE.test(p))
  if (runner && file) {
    return {
      tool: runner,
      args: { script: file, args: ['--help'] },
      what: `ran ${file} --help in the sandbox (${runner})`,
    }
  }
  // A declared script with no required parameter runs in the sandbox as well.
  const declared = skill.toolsAdded.find(
    (n) => n.startsWith('run_') && offered.get(n)?.required.length === 0,
  )
  if (declared) return { tool: declared, args: {}, what: `called ${declared} with no arguments` }
  if (skill.toolsAdded.length === 0) {
    const off = skill.toolsUnavailable?.length
      ? `; ${skill.toolsUnavailable.length} of its tools are not offered on this host (${skill.toolsUnavailable[0]?.reason ?? 'no reason given'})`
      : ''
    return { none: `it adds no tools${off}` }
  }
  return {
    none: `none of its tools (${skill.toolsAdded.join(', ')}) has a harmless sample: no script file to run with --help, and no sandboxed script without required parameters`,
  }
}

/** The count with its noun, singular for one. */
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`

/**
 * A scripted stand-in for a model over an unknown catalog (`demo --root`):
 * `list_skills`, then the listed skills in order (at most five): load one;
 * when it has a harmless sample (a script file of the skill run with
 * `--help` through its `run_<skill>_script` tool, else a declared script
 * without required parameters; both run in the sandbox) call it; unload it;
 * stop after the first skill sampled. Its answer is the story of what each
 * call returned, nothing assumed. A step whose tool is not offered is
 * skipped and said so.
 */
export function catalogDemoModel(): MockLanguageModelV3 {
  const walk = new CatalogWalk()
  return new MockLanguageModelV3({
    provider: 'skillhost-demo',
    modelId: 'scripted-catalog',
    doGenerate: async (call) => {
      walk.record(resultsOf(call).at(-1))
      const offered: Offered = new Map(
        (call.tools ?? []).map((t) => {
          const schema = 'inputSchema' in t ? (t.inputSchema as { required?: string[] }) : {}
          return [t.name, { required: schema.required ?? [] }] as const
        }),
      )
      return walk.next(offered)
    },
  })
}

/** The tools a step offers, each with its required parameters. */
type Offered = ReadonlyMap<string, { required: readonly string[] }>
type WalkStep = 'list' | 'load' | 'sample' | 'unload'
type ToolResult = ReturnType<typeof resultsOf>[number]

/** The scripted model's walk over the catalog: what it has learnt, and its next call. */
class CatalogWalk {
  #ids: string[] | undefined
  #attempt = 0
  #current: Loaded | undefined
  #currentSampled = false
  #sampledAny = false
  #pending: { step: WalkStep; what: string } | undefined
  readonly #story: string[] = []

  /** Tells the story of what the call made last time returned. */
  record(last: ToolResult | undefined): void {
    const pending = this.#pending
    this.#pending = undefined
    if (pending?.step === 'list') {
      const list = parsed<{ skills?: { id: string }[]; total?: number }>(last?.text)
      this.#ids = (list?.skills ?? []).map((s) => s.id)
      this.#story.push(`list_skills found ${count(list?.total ?? this.#ids.length, 'skill')}.`)
    } else if (pending?.step === 'load') {
      const current = last ? loadedOf(last) : undefined
      this.#current = current
      this.#currentSampled = false
      this.#story.push(
        current
          ? `Loaded ${current.id}: ${count(current.toolsAdded.length, 'tool')} added, ${count(current.filesTotal ?? current.files.length, 'file')}.`
          : `${pending.what} did not load: ${firstLine(last?.text)}`,
      )
    } else if (pending?.step === 'sample') {
      this.#sampledAny = true
      this.#story.push(`I ${pending.what}: ${sampleSummary(last?.text)}.`)
    } else if (pending?.step === 'unload') {
      const ok = parsed<{ id?: string }>(last?.text)?.id !== undefined
      this.#story.push(
        ok
          ? `Unloaded ${pending.what}.`
          : `Unloading ${pending.what} failed: ${firstLine(last?.text)}`,
      )
      this.#current = undefined
    }
  }

  /** The next call (list, load, sample, unload) among the tools offered, or the closing story. */
  next(offered: Offered) {
    const story = this.#story
    if (this.#ids === undefined) {
      return offered.has('list_skills')
        ? this.#call('list', '', 'list_skills', {})
        : say('list_skills was not offered, so I could not see any skill.')
    }
    const current = this.#current
    if (current) {
      if (!this.#currentSampled) {
        this.#currentSampled = true
        const sample = sampleCall(current, offered)
        if ('tool' in sample) return this.#call('sample', sample.what, sample.tool, sample.args)
        story.push(`${current.id} has no harmless sample: ${sample.none}.`)
      }
      if (offered.has('unload_skill'))
        return this.#call('unload', current.id, 'unload_skill', { skill: current.id })
      story.push(`${current.id} stays loaded: unload_skill was not offered.`)
      return say(story.join(' '))
    }
    const id = this.#ids[this.#attempt]
    if (
      !this.#sampledAny &&
      id !== undefined &&
      this.#attempt < MAX_LOAD_ATTEMPTS &&
      offered.has('load_skill')
    ) {
      this.#attempt += 1
      return this.#call('load', id, 'load_skill', { skill: id })
    }
    if (!story.some((line) => line.startsWith('Loaded ')))
      story.push('No skill loaded, so nothing was run.')
    return say(story.join(' '))
  }

  #call(step: WalkStep, what: string, tool: string, args: Record<string, unknown>) {
    this.#pending = { step, what }
    return toolCall(tool, args)
  }
}
