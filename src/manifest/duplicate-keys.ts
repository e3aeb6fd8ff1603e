import type { Document, Node, YAMLParseError } from 'yaml'
import { yamlLib } from './yaml-lib.js'

/**
 * `yaml`'s own duplicate-key check compares each new key with every key the
 * map already holds (`items.some(...)` per key): n²/2 comparisons for a map
 * of n keys, about a second for a 64 KiB frontmatter of one-line keys. The
 * manifests compose with that check off (`uniqueKeys: false`) and this file
 * finds the same duplicates in one pass. Up to `EXACT_REPLAY_PAIRS`
 * comparisons a document, a document that has any is composed again with
 * `yaml`'s check, so its errors (their order among the others) are exactly
 * `yaml`'s; beyond, the duplicate errors are placed by position.
 */
export const EXACT_REPLAY_PAIRS = 1 << 17

/** A key equal to an earlier key of its map, as `yaml` compares them. */
export interface DuplicateKey {
  /** Where `yaml` reports it: the key's first character. */
  readonly offset: number
}

/**
 * Every key of every mapping in `doc` that equals an earlier key of the same
 * mapping by `yaml`'s rule (two scalars whose values are `===`; nodes of any
 * other kind are never equal), plus the number of comparisons `yaml`'s own
 * check would make (Σ n(n-1)/2 over the mappings). Linear in the nodes: an
 * explicit stack, a `Map` per mapping; aliases are not followed.
 */
export function findDuplicateKeys(doc: Document.Parsed): {
  readonly duplicates: DuplicateKey[]
  readonly pairs: number
} {
  const { isMap, isPair, isScalar, isSeq } = yamlLib()
  const duplicates: DuplicateKey[] = []
  let pairs = 0
  const pending: unknown[] = [doc.contents]
  while (pending.length > 0) {
    const node = pending.pop()
    if (isMap(node)) {
      const n = node.items.length
      pairs += (n * (n - 1)) / 2
      const seen = new Set<unknown>()
      for (const pair of node.items) {
        const key = pair.key
        // NaN !== NaN: `yaml` never finds a NaN key equal, so neither does this.
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) duplicates.push({ offset: (key as Node).range?.[0] ?? 0 })
          else seen.add(key.value)
        }
        pending.push(pair.key, pair.value)
      }
    } else if (isSeq(node)) for (const item of node.items) pending.push(item)
    else if (isPair(node)) pending.push(node.key, node.value)
  }
  return { duplicates, pairs }
}

/**
 * Adds `yaml`'s DUPLICATE_KEY error for each of `duplicates` to `doc.errors`,
 * each before the first error that starts after it, the others kept in their
 * order (the order `yaml` gives in all but contrived documents; used only
 * past `EXACT_REPLAY_PAIRS`).
 */
export function addDuplicateKeyErrors(
  doc: Document.Parsed,
  duplicates: readonly DuplicateKey[],
): void {
  const added = duplicates.map(({ offset }) => offset).sort((a, b) => a - b)
  const { YAMLParseError } = yamlLib()
  const merged: YAMLParseError[] = []
  let next = 0
  const addUpTo = (limit: number): void => {
    for (; next < added.length && added[next]! < limit; next++) {
      const at = added[next]!
      merged.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'))
    }
  }
  for (const error of doc.errors) {
    addUpTo(error.pos[0])
    merged.push(error)
  }
  addUpTo(Number.POSITIVE_INFINITY)
  doc.errors.length = 0
  for (const error of merged) doc.errors.push(error)
}
