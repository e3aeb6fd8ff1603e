import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type Document, isMap, isPair, isSeq, parseDocument } from 'yaml'
import { checkYamlDepth, MAX_YAML_DEPTH } from '../../src/manifest/check-yaml-depth.js'
import { parseYamlDocument } from '../../src/manifest/parse-yaml-document.js'
import { fuzzParams } from '../helpers/fuzz-config.js'
import { yamlDocument, yamlNoise } from '../helpers/yaml-documents.js'

/**
 * The `yaml` package's own depth: collections on the longest root-to-leaf
 * path of the node tree it composes (a pair is not a level, a collection
 * used as a key is). Recursive, so only ever run on documents of bounded depth.
 */
function composedDepth(node: unknown): number {
  if (isMap(node) || isSeq(node)) {
    let deepest = 0
    for (const item of node.items) deepest = Math.max(deepest, composedDepth(item))
    return deepest + 1
  }
  if (isPair(node)) return Math.max(composedDepth(node.key), composedDepth(node.value))
  return 0
}

function guardRefuses(text: string): boolean {
  try {
    checkYamlDepth(text, 'doc')
    return false
  } catch (err) {
    expect((err as { code?: string }).code).toBe('E_SKILL_MANIFEST_INVALID')
    expect((err as Error).message).toBe(
      `doc nests YAML deeper than ${MAX_YAML_DEPTH} levels; flatten it.`,
    )
    return true
  }
}

describe('fuzz: YAML depth guard', () => {
  it('refuses exactly the generated documents the yaml package composes deeper than the limit', () => {
    const seen = { refused: 0, accepted: 0, atLimit: 0, pastLimit: 0 }
    fc.assert(
      fc.property(yamlDocument(MAX_YAML_DEPTH), (text) => {
        const doc = parseDocument(text, { strict: true })
        // The generator writes valid YAML only; otherwise the comparison says nothing.
        expect(doc.errors.map((e) => e.message)).toEqual([])
        const depth = composedDepth(doc.contents)
        expect(guardRefuses(text)).toBe(depth > MAX_YAML_DEPTH)
        if (depth > MAX_YAML_DEPTH) seen.refused++
        else seen.accepted++
        if (depth === MAX_YAML_DEPTH) seen.atLimit++
        if (depth === MAX_YAML_DEPTH + 1) seen.pastLimit++
      }),
      fuzzParams,
    )
    // Both verdicts, and the boundary itself, were exercised.
    expect(seen.refused).toBeGreaterThan(0)
    expect(seen.accepted).toBeGreaterThan(0)
    expect(seen.atLimit).toBeGreaterThan(0)
    expect(seen.pastLimit).toBeGreaterThan(0)
  })

  it('parseYamlDocument composes what parseDocument composes (value, errors, positions)', () => {
    const summary = (doc: Document.Parsed) => {
      let value: unknown
      try {
        value = doc.toJS({ mapAsMap: true })
      } catch (err) {
        value = (err as Error).name
      }
      const problems = [...doc.errors, ...doc.warnings].map((e) => ({
        code: e.code,
        // parseDocument ends the line with ':' before a source excerpt; ours has none.
        message: e.message.split('\n')[0]?.replace(/:$/, ''),
        linePos: e.linePos,
      }))
      return { value, problems }
    }
    fc.assert(
      fc.property(
        fc.oneof(yamlDocument(MAX_YAML_DEPTH), yamlNoise),
        fc.boolean(),
        (text, strict) => {
          let ours: Document.Parsed
          try {
            ours = parseYamlDocument(text, 'doc', { strict })
          } catch {
            return // refused for depth: the first property covers that verdict
          }
          expect(summary(ours)).toEqual(summary(parseDocument(text, { strict })))
        },
      ),
      fuzzParams,
    )
  })
})
