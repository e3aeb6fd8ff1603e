import { Lexer } from 'yaml'
import { SkillHostError } from '../common/errors.js'

/** Deepest YAML nesting (flow brackets plus block levels) a manifest may use. */
export const MAX_YAML_DEPTH = 64

/**
 * Throws `E_SKILL_MANIFEST_INVALID` when `yamlText` nests deeper than
 * `MAX_YAML_DEPTH`, before any parser builds a tree: the `yaml` package
 * composes recursively, so 100k nested `[` abort the process (not a catchable
 * error). The check uses the package's own lexer, which is iterative and
 * linear and treats quotes and comments exactly as the parser will; depth is
 * open flow brackets plus the block indicators at increasing columns.
 * `what` names the file in the model-safe message.
 */
export function checkYamlDepth(yamlText: string, what: string): void {
  let flow = 0
  let column = 0
  let lineStart = true
  const block: number[] = []
  const popTo = (col: number): void => {
    while (block.length > 0 && block[block.length - 1]! >= col) block.pop()
  }
  for (const token of new Lexer().lex(yamlText)) {
    const type = token.length > 0 && token.charCodeAt(0) < 0x20 ? token.charCodeAt(0) : -1
    // Control tokens (doc start, flow scalar marks...) carry no text width.
    if (type !== -1) continue
    if (token === '\n' || token === '\r\n') {
      column = 0
      lineStart = true
      continue
    }
    // A line's first token closes the block levels at or right of its column.
    if (lineStart && flow === 0 && token.trim() !== '') {
      popTo(column)
      lineStart = false
    }
    if (token === '[' || token === '{') flow++
    else if ((token === ']' || token === '}') && flow > 0) flow--
    else if (flow === 0 && (token === '-' || token === '?' || token === ':')) {
      popTo(column)
      block.push(column)
    }
    if (flow + block.length > MAX_YAML_DEPTH) {
      throw new SkillHostError(
        'E_SKILL_MANIFEST_INVALID',
        `${what} nests YAML deeper than ${MAX_YAML_DEPTH} levels; flatten it.`,
      )
    }
    column += token.length
  }
}
