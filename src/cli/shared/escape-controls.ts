/**
 * Terminal control characters a skill can hide in text the CLI prints: C0
 * (but tab and newline), DEL, C1, and the bidi overrides and isolates that
 * reorder what a reader sees. Raw, they clear the screen, move the cursor,
 * overwrite a line with `\r` or forge a log line.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` with every terminal control character shown as a visible `\uXXXX`
 * escape. Tab and newline stay (the CLI's own layout). The escape is also a
 * valid JSON string escape for the same character, so `--json` output stays
 * valid JSON and parses to the same value.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const LINE_BREAKS = /[\n\u2028\u2029]/g

/**
 * `text` made safe to print as one line of a report or log: control
 * characters as `escapeControls` shows them, and line breaks (newline, and the
 * Unicode line and paragraph separators) as visible `\n` / `\u2028` escapes,
 * so skill text cannot start a line of its own.
 */
export function escapeLine(text: string): string {
  return escapeControls(text).replace(LINE_BREAKS, (c) =>
    c === '\n' ? '\\n' : `\\u${c.charCodeAt(0).toString(16)}`,
  )
}
