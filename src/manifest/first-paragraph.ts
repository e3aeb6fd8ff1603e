/**
 * The first paragraph of a SKILL.md body, as one line, for a skill whose
 * frontmatter gives no description: Claude Code uses "the first paragraph of
 * markdown content" there. Headings, fenced code, HTML comments and blocks
 * of only punctuation (rules, table borders) are not paragraphs and are
 * passed over. Whitespace runs become one space; the result is cut to
 * `maxLength` characters (ending in `…`) or is '' when the body has no
 * paragraph. Linear in the body's length: the body is skill-controlled.
 */
export function firstParagraph(body: string, maxLength: number): string {
  let block: string[] = []
  let fence: string | undefined
  let comment = false
  const flush = (): string | undefined => {
    const text = block.join(' ').replace(/\s+/g, ' ').trim()
    block = []
    return /[\p{L}\p{N}]/u.test(text) ? text : undefined
  }
  for (const raw of body.split('\n')) {
    const line = raw.trim()
    if (fence !== undefined) {
      if (line.startsWith(fence)) fence = undefined
      continue
    }
    if (comment) {
      if (line.includes('-->')) comment = false
      continue
    }
    const opens = /^(`{3,}|~{3,})/.exec(line)
    const breaks =
      line === '' ||
      opens !== null ||
      line.startsWith('#') ||
      (line.startsWith('<!--') && !line.includes('-->')) ||
      /^(?:[-*_=|:+\s]{3,})$/.test(line)
    if (breaks) {
      const text = flush()
      if (text !== undefined) return cut(text, maxLength)
      if (opens) fence = opens[1]
      else if (line.startsWith('<!--')) comment = true
      continue
    }
    if (line.startsWith('<!--') && line.endsWith('-->')) continue
    block.push(line)
  }
  const text = flush()
  return text === undefined ? '' : cut(text, maxLength)
}

function cut(text: string, maxLength: number): string {
  const chars = Array.from(text)
  return chars.length <= maxLength ? text : `${chars.slice(0, maxLength - 1).join('')}…`
}
