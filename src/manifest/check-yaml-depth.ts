import type { CST } from 'yaml'
import { SkillHostError } from '../common/errors.js'
import { yamlLib } from './yaml-lib.js'

/**
 * Deepest YAML nesting a manifest may use: the number of collections (block
 * or flow maps and sequences) on the longest path from the document's root
 * to a leaf of the node tree the `yaml` package composes.
 */
export const MAX_YAML_DEPTH = 64

const tooDeep = (what: string): SkillHostError =>
  new SkillHostError(
    'E_SKILL_MANIFEST_INVALID',
    `${what} nests YAML deeper than ${MAX_YAML_DEPTH} levels; flatten it.`,
  )

// Fail closed: a structure this check does not know is refused, not waved on.
const unjudged = (what: string, cause?: unknown): SkillHostError =>
  new SkillHostError(
    'E_SKILL_MANIFEST_INVALID',
    `${what} uses YAML structure the nesting check cannot judge; simplify it.`,
    cause === undefined ? {} : { cause },
  )

// Stack entries that are not collections: the document, a scalar, and spare.
const STACK_SLACK = 4

const isCollection = (t: CST.Token): boolean =>
  t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection'

/**
 * Throws `E_SKILL_MANIFEST_INVALID` when `yamlText` nests deeper than
 * `MAX_YAML_DEPTH` (counted as that constant says), before anything composes
 * it: the `yaml` package's composer and `toJS` recurse once per level, so
 * 100k nested `[` or `- ` abort the process (not a catchable error).
 * Returns the CST it built, for `parseYamlDocument` to compose without
 * parsing the text again; `onNewLine` receives each line's start offset
 * (a `LineCounter` for error positions).
 *
 * The check feeds the package's own lexer and CST parser one lexeme at a
 * time; both keep their state on explicit stacks, so quotes, comments, block
 * scalars, indentation and flow brackets are read exactly as the composer
 * will read them, in time linear in the text. The parser's stack is the
 * chain of collections open at that point; once it holds more than the limit
 * the document is refused at once, which also bounds the parser's own
 * (shallow, per-lexeme) recursion. The finished CST is then measured with an
 * explicit stack, counting a `key: value` pair inside a flow sequence as the
 * one-pair map the composer makes of it. Anything the walk does not know is
 * refused. `what` names the file in the model-safe message.
 */
export function checkYamlDepth(
  yamlText: string,
  what: string,
  onNewLine?: (offset: number) => void,
): CST.Token[] {
  const { Lexer, Parser } = yamlLib()
  const parser = new Parser(onNewLine)
  const top: CST.Token[] = []
  try {
    onNewLine?.(0)
    for (const lexeme of new Lexer().lex(yamlText)) {
      for (const token of parser.next(lexeme)) top.push(token)
      if (parser.stack.length > MAX_YAML_DEPTH) {
        if (openCollections(parser.stack) > MAX_YAML_DEPTH) throw tooDeep(what)
        // Besides collections the stack holds the document and one scalar;
        // a taller stack of something else is not this check's to judge.
        if (parser.stack.length > MAX_YAML_DEPTH + STACK_SLACK) throw unjudged(what)
      }
    }
    for (const token of parser.end()) top.push(token)
  } catch (cause) {
    if (SkillHostError.isInstance(cause)) throw cause
    throw unjudged(what, cause)
  }
  for (const token of top) {
    const depth = cstDepth(token)
    if (depth === undefined) throw unjudged(what)
    if (depth > MAX_YAML_DEPTH) throw tooDeep(what)
  }
  return top
}

function openCollections(stack: readonly CST.Token[]): number {
  let n = 0
  for (const t of stack) if (isCollection(t)) n++
  return n
}

/**
 * The deepest collection nesting under `root`, or undefined for a token kind
 * this walk does not know. Iterative: a finished CST may be as deep as the
 * parser let it grow.
 */
function cstDepth(root: CST.Token): number | undefined {
  let max = 0
  const pending: Array<[CST.Token, number]> = [[root, 0]]
  const add = (t: CST.Token | null | undefined, depth: number): void => {
    if (t) pending.push([t, depth])
  }
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [t, above] = next
    switch (t.type) {
      case 'document':
        add(t.value, above)
        break
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        const depth = above + 1
        if (depth > max) max = depth
        const pairsAreMaps = t.type === 'flow-collection' && t.start.source === '['
        for (const item of t.items) {
          const key = 'key' in item ? item.key : undefined
          const sep = 'sep' in item ? item.sep : undefined
          // The composer turns `[a: b]` and `[? a]` into a one-pair map.
          const pair =
            pairsAreMaps &&
            (sep !== undefined || item.start.some((s) => s.type === 'explicit-key-ind'))
          // That map is a level even when its key and value are scalars.
          if (pair && depth + 1 > max) max = depth + 1
          add(key, pair ? depth + 1 : depth)
          add(item.value, pair ? depth + 1 : depth)
        }
        break
      }
      case 'block-scalar':
      case 'scalar':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
      case 'alias':
      case 'error':
      case 'directive':
      case 'doc-end':
      case 'comment':
      case 'newline':
      case 'space':
      case 'byte-order-mark':
      case 'doc-mode':
      case 'doc-start':
      case 'directive-line':
      case 'anchor':
      case 'tag':
      case 'seq-item-ind':
      case 'explicit-key-ind':
      case 'map-value-ind':
      case 'flow-map-start':
      case 'flow-map-end':
      case 'flow-seq-start':
      case 'flow-seq-end':
      case 'flow-error-end':
      case 'comma':
      case 'block-scalar-header':
        break
      default:
        return undefined
    }
  }
  return max
}
