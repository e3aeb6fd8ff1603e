import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// The architecture, bottom to top (docs/architecture.md). A file may import
// only from its own layer or from lower ones; the tier folders (and the two
// adapters) sit side by side and may not import each other.
const LAYERS: readonly [string, number][] = [
  ['common/', 0],
  ['skill-model/', 1],
  ['manifest/', 2],
  ['sources/', 3],
  ['sandbox/', 4],
  ['tiers/spool-result.ts', 4.4],
  ['tiers/skill-tool-envelope.ts', 4.5],
  ['tiers/tier-forge.ts', 4.6],
  ['tiers/module/', 5],
  ['tiers/isolated/', 5],
  ['tiers/scripts/', 5],
  ['tiers/workspace/', 5],
  ['manager/', 6],
  ['lifecycle-tools.ts', 7],
  ['adapters/ai-sdk/', 8],
  ['adapters/mcp/', 8],
  ['adapters/postgres/', 8],
  ['cli/', 9],
  ['index.ts', 10],
]
const SRC = resolve(import.meta.dirname, '../src')

function layerOf(file: string): [string, number] {
  const rel = relative(SRC, file)
  const found = LAYERS.find(([prefix]) => rel === prefix || rel.startsWith(prefix))
  if (!found) throw new Error(`${rel} belongs to no layer; add it to LAYERS`)
  return found
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  )
}

/** Every wrong-way import: `from` in a higher or sideways layer than `to`'s. */
function layeringViolations(
  files: readonly string[],
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): string[] {
  const bad: string[] = []
  for (const file of files) {
    const [name, rank] = layerOf(file)
    const text = read(file)
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'))
      const [toName, toRank] = layerOf(target)
      if (toRank > rank || (toRank === rank && toName !== name)) {
        bad.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`)
      }
    }
  }
  return bad
}

describe('layers only point down', () => {
  it('has no upward or sideways import in src/', () => {
    expect(layeringViolations(sources(SRC))).toEqual([])
  })

  it('catches an upward and a sideways import', () => {
    const files = sources(SRC)
    const planted: Record<string, string> = {
      [join(SRC, 'common/errors.ts')]: "import { x } from '../manager/create-skill-manager.js'\n",
      [join(SRC, 'tiers/module/wrap-module-tool.ts')]:
        "export type { Y } from '../isolated/index.js'\n",
    }
    const read = (f: string) => planted[f] ?? readFileSync(f, 'utf8')
    expect(layeringViolations(files, read)).toEqual([
      'common/errors.ts -> manager/create-skill-manager.ts',
      'tiers/module/wrap-module-tool.ts -> tiers/isolated/index.ts',
    ])
  })
})
