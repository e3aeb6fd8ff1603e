import type { MockLanguageModelV3 } from 'ai/test'

// The parts both scripted demo models are built from, on the AI SDK's own mock.

type Call = MockLanguageModelV3['doGenerateCalls'][number]
/** One turn of a scripted model. */
export type Result = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>

const USAGE = {
  inputTokens: {
    total: undefined,
    noCache: undefined,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}

/** The tool results in a prompt, oldest first, as (tool, text) pairs. */
export function resultsOf(call: Call): { tool: string; text: string }[] {
  const out: { tool: string; text: string }[] = []
  for (const message of call.prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue
      const o = part.output
      out.push({
        tool: part.toolName,
        text: 'value' in o && typeof o.value === 'string' ? o.value : JSON.stringify(o),
      })
    }
  }
  return out
}

let seq = 0
/** The model's turn that calls `toolName` with `args`. */
export const toolCall = (toolName: string, args: Record<string, unknown>): Result => ({
  content: [
    { type: 'tool-call', toolCallId: `scripted_${++seq}`, toolName, input: JSON.stringify(args) },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: USAGE,
  warnings: [],
})
/** The model's closing turn: `text`, no tool call. */
export const say = (text: string): Result => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: USAGE,
  warnings: [],
})

/** Tool results, oldest first, as (tool, text) pairs. */
export type Results = readonly { tool: string; text: string }[]

/** A tool result's own text, without the spool footer; JSON strings decoded. */
export function payload(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  const body = text
    .replace(/\n\n\[result r_[0-9a-f]{16}[^\]]*\]$/, '')
    .replace(/^\[artifact [^\]]*\]\s*/, '')
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === 'string' ? value : body
  } catch {
    return body
  }
}

/**
 * Why a skill's tool gave nothing, as it happened: the skill did not load
 * (its error's first line), or the tool was never offered (`notOffered`
 * names the likely reason when the load result gives none), or it ran
 * and gave no answer (its first line).
 */
export function whyMissing(
  results: Results,
  skill: string,
  tool: string,
  offered: ReadonlySet<string>,
  notOffered: string,
): string {
  const loads = results.filter((r) => r.tool === 'load_skill' && r.text.includes(skill))
  const loaded = loads.some((r) => /"toolsAdded"/.test(r.text))
  if (loads.length > 0 && !loaded) {
    const first = (payload(loads.at(-1)?.text) ?? '').split('\n')[0]?.slice(0, 160)
    return `${skill} did not load (${first})`
  }
  const ran = results.filter((r) => r.tool === tool).at(-1)
  if (ran)
    return `${tool} ran but gave no answer (${(payload(ran.text) ?? '').split('\n')[0]?.slice(0, 160)})`
  if (!offered.has(tool)) {
    // The host's own reason, when the load result names the tool as unavailable.
    const unavailable = loaded ? unavailableReason(payload(loads.at(-1)?.text), tool) : undefined
    return `${tool} was not offered (${unavailable ?? notOffered})`
  }
  return `${tool} was not called`
}

/** The reason a load result's `toolsUnavailable` gives for `tool`, in words. */
function unavailableReason(body: string | undefined, tool: string): string | undefined {
  try {
    const value = JSON.parse(body ?? '') as {
      toolsUnavailable?: { name?: string; reason?: string }[]
    }
    const reason = value.toolsUnavailable?.find((t) => t.name === tool)?.reason
    // A reason code such as scripts-off, said as words.
    return reason === undefined ? undefined : `${reason.replaceAll('-', ' ')} on this host`
  } catch {
    return undefined
  }
}
