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
  ['tiers/spool-result.ts', 4.4],
  ['tiers/skill-tool-envelope.ts', 4.5],
  ['tiers/tier-forge.ts', 4.6],
  ['tiers/module/', 5],
  ['tiers/isolated/', 5],
  ['tiers/scripts/', 5],
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

const TIER_FOLDERS = ['tiers/module/', 'tiers/isolated/', 'tiers/scripts/'] as const
/** What a tier shows the layers above it: its public entry and its internal face. */
const TIER_FACES = ['index.ts', 'tier.ts']
/** Layers not yet moved onto the tiers' faces (the CLI still reaches in; issue 21 part 4). */
const FACE_EXEMPT = ['cli/']

/** Every import from outside a tier folder into a file that is not one of its faces. */
function tierInternalsReached(
  files: readonly string[],
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): string[] {
  const bad: string[] = []
  for (const file of files) {
    const from = relative(SRC, file)
    if (FACE_EXEMPT.some((p) => from.startsWith(p))) continue
    for (const m of read(file).matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const to = relative(SRC, resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')))
      const tier = TIER_FOLDERS.find((t) => to.startsWith(t))
      if (tier === undefined || from.startsWith(tier)) continue
      if (!TIER_FACES.includes(to.slice(tier.length))) bad.push(`${from} -> ${to}`)
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

  it('reaches a tier only through its faces (index.ts, tier.ts)', () => {
    expect(tierInternalsReached(sources(SRC))).toEqual([])
  })

  it("catches a reach into a tier's internals", () => {
    const files = sources(SRC)
    const planted: Record<string, string> = {
      [join(SRC, 'manager/catalog.ts')]:
        "import { x } from '../tiers/scripts/workspace/session-workspace.js'\n",
    }
    const read = (f: string) => planted[f] ?? readFileSync(f, 'utf8')
    expect(tierInternalsReached(files, read)).toEqual([
      'manager/catalog.ts -> tiers/scripts/workspace/session-workspace.ts',
    ])
  })
})
