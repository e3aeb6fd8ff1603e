/**
 * Control characters that text from a skill, a script or a model can hide in
 * what the host prints or reports: C0 (but tab and newline), DEL, C1, and the
 * bidi overrides and isolates that reorder what a reader sees. Raw, they clear
 * the screen, move the cursor, overwrite a line with `\r` or forge a line.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` with every control character shown as a visible `\uXXXX` escape.
 * Tab and newline stay (the caller's own layout). The escape is also a valid
 * JSON string escape for the same character, so JSON output stays valid and
 * parses to the same value.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const LINE_BREAKS = /[\n\u2028\u2029]/g

/**
 * `text` made safe to print as one line of a report or log: control
 * characters as `escapeControls` shows them, and line breaks (newline, and the
 * Unicode line and paragraph separators) as visible `\n` / `\u2028` escapes,
 * so untrusted text cannot start a line of its own.
 */
export function escapeLine(text: string): string {
  return escapeControls(text).replace(LINE_BREAKS, (c) =>
    c === '\n' ? '\\n' : `\\u${c.charCodeAt(0).toString(16)}`,
  )
}

/** A name that reads the same quoted or not: no space, quote, backslash, control or line break. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const PLAIN_NAME = /^[^\s"'\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+$/

/**
 * A file name another party chose, as host-written text shows it: as is when
 * it is plain, otherwise in double quotes with every control character, line
 * break, quote and backslash escaped (`"a\nb"`), so it is always one token of
 * one line and can never forge a line or a field of the report around it.
 */
export function quoteName(name: string): string {
  if (PLAIN_NAME.test(name)) return name
  return `"${escapeLine(name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')).replace(/\t/g, '\\t')}"`
}
