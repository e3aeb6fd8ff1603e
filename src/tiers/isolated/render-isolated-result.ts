import type { IsolatedToolResult } from './run-isolated-tool.js'

/**
 * The text a model sees for an isolated call: the result's JSON text alone
 * when the guest logged nothing, else one JSON object
 * `{"result": …, "console": [{level, text}], "consoleTruncated": bool}`.
 * Built by concatenation: the result text is never parsed into host objects.
 */
export function renderIsolatedResult(result: IsolatedToolResult): string {
  if (result.console.length === 0 && !result.consoleTruncated) return result.json
  const lines = result.console.map((entry) => ({ level: entry.level, text: entry.text }))
  return `{"result":${result.json},"console":${JSON.stringify(lines)},"consoleTruncated":${result.consoleTruncated}}`
}
