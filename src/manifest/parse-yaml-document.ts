import { Composer, type Document, isScalar, LineCounter, visit, YAMLParseError } from 'yaml'
import { checkYamlDepth } from './check-yaml-depth.js'

/**
 * Parses a manifest's YAML as `yaml`'s `parseDocument` would, after
 * `checkYamlDepth` has refused anything nested deeper than `MAX_YAML_DEPTH`
 * (`E_SKILL_MANIFEST_INVALID`). The one way manifests reach the composer, so
 * every caller holds the same limit; it composes the CST the check already
 * built, so the guard costs no second parse. Errors and warnings carry
 * `linePos` and end their first line with "at line L, column C". A second
 * document is a `MULTIPLE_DOCS` error, as in `parseDocument`. `strict` is the
 * `yaml` option of that name.
 */
export function parseYamlDocument(
  yamlText: string,
  what: string,
  options: { readonly strict?: boolean } = {},
): Document.Parsed {
  const lines = new LineCounter()
  const tokens = checkYamlDepth(yamlText, what, lines.addNewLine)
  // logLevel 'error': the library's own warnings (a collection used as a
  // key, stringified) are not written to the process's stderr; problems
  // reach the user through `errors` and the manifest rules, nowhere else.
  const composer = new Composer({ ...options, logLevel: 'error' })
  let doc: Document.Parsed | undefined
  for (const next of composer.compose(tokens, true, yamlText.length)) {
    if (doc === undefined) doc = next
    else {
      const message = 'Source contains multiple documents; please use YAML.parseAllDocuments()'
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', message))
      break
    }
  }
  // compose(…, forceDoc = true) always yields a document, even for empty text.
  const parsed = doc as Document.Parsed
  for (const problem of [...parsed.errors, ...parsed.warnings]) {
    if (problem.pos[0] === -1) continue
    problem.linePos = [lines.linePos(problem.pos[0]), lines.linePos(problem.pos[1])]
    problem.message += ` at line ${problem.linePos[0].line}, column ${problem.linePos[0].col}`
  }
  return parsed
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
export function keepExactIntegers(doc: Parameters<typeof visit>[0]): void {
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
