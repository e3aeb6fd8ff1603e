const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/**
 * Escapes `& < > " '` so skill-controlled text placed inside a prompt
 * wrapper (element text or attribute value) can neither open nor close a tag:
 * the only `<` and `>` left in the output are the wrapper's own.
 */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}
