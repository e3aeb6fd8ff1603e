import type { CST, Document, Node } from 'yaml'
import { checkYamlDepth } from './check-yaml-depth.js'
import { addDuplicateKeyErrors, EXACT_REPLAY_PAIRS, findDuplicateKeys } from './duplicate-keys.js'
import { yamlLib } from './yaml-lib.js'

/**
 * Parses a manifest's YAML as `yaml`'s `parseDocument` would, after
 * `checkYamlDepth` has refused anything nested deeper than `MAX_YAML_DEPTH`
 * (`E_SKILL_MANIFEST_INVALID`). The one way manifests reach the composer, so
 * every caller holds the same limit; it composes the CST the check already
 * built, so the guard costs no second parse. Duplicate keys are found in
 * linear time (`findDuplicateKeys`), not by `yaml`'s n² check. Errors and warnings carry
 * `linePos` and end their first line with "at line L, column C". A second
 * document is a `MULTIPLE_DOCS` error, as in `parseDocument`. `strict` is the
 * `yaml` option of that name.
 */
export function parseYamlDocument(
  yamlText: string,
  what: string,
  options: { readonly strict?: boolean } = {},
): Document.Parsed {
  const lines = new (yamlLib().LineCounter)()
  const tokens = checkYamlDepth(yamlText, what, lines.addNewLine)
  // Composed with yaml's quadratic duplicate-key check off; the same
  // duplicates are found in one pass (duplicate-keys.ts).
  let parsed = composeTokens(tokens, yamlText.length, { ...options, uniqueKeys: false })
  const { duplicates, pairs } = findDuplicateKeys(parsed)
  if (duplicates.length > 0 && pairs <= EXACT_REPLAY_PAIRS)
    parsed = composeTokens(tokens, yamlText.length, options)
  else if (duplicates.length > 0) addDuplicateKeyErrors(parsed, duplicates)
  // The document says what `parseDocument` would: keys must be unique.
  parsed.options.uniqueKeys = true
  for (const problem of [...parsed.errors, ...parsed.warnings]) {
    if (problem.pos[0] === -1) continue
    problem.linePos = [lines.linePos(problem.pos[0]), lines.linePos(problem.pos[1])]
    problem.message += ` at line ${problem.linePos[0].line}, column ${problem.linePos[0].col}`
  }
  return parsed
}

/** The one document `tokens` hold (a second is a `MULTIPLE_DOCS` error), as `parseDocument` composes it. */
function composeTokens(
  tokens: readonly CST.Token[],
  length: number,
  options: { readonly strict?: boolean; readonly uniqueKeys?: boolean },
): Document.Parsed {
  // logLevel 'error': the library's own warnings (a collection used as a
  // key, stringified) are not written to the process's stderr; problems
  // reach the user through `errors` and the manifest rules, nowhere else.
  const { Composer, YAMLParseError } = yamlLib()
  const composer = new Composer({ ...options, logLevel: 'error' })
  let doc: Document.Parsed | undefined
  for (const next of composer.compose(tokens, true, length)) {
    if (doc === undefined) doc = next
    else {
      const message = 'Source contains multiple documents; please use YAML.parseAllDocuments()'
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', message))
      break
    }
  }
  // compose(…, forceDoc = true) always yields a document, even for empty text.
  return doc as Document.Parsed
}

/**
 * A YAML error as one sentence for a message: its first line, without a
 * trailing colon, ending in a full stop.
 */
export function yamlErrorSentence(error: { readonly message: string }): string {
  const line = (error.message.split('\n')[0] ?? '').trim().replace(/[:.]$/, '')
  return `${line}.`
}

/**
 * An integer beyond 2^53 has no exact JavaScript number (`12345678901234567890`
 * would read as `12345678901234567000`), and JSON carries frontmatter to
 * clients that compare it: such a scalar keeps its source text, a string.
 */
export function keepExactIntegers(doc: Document | Node): void {
  const { isScalar, visit } = yamlLib()
  visit(doc, {
    Scalar(_, node) {
      if (
        isScalar(node) &&
        typeof node.value === 'number' &&
        Number.isInteger(node.value) &&
        !Number.isSafeInteger(node.value) &&
        typeof node.source === 'string'
      )
        node.value = node.source
    },
  })
}
