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
  // lifecycle-tools.ts (the entry) and lifecycle-tools/ (one file per tool): one layer.
  ['lifecycle-tools', 7],
  ['adapters/ai-sdk/', 8],
  ['adapters/mcp/', 8],
  ['adapters/postgres/', 8],
  // The root entry re-exports layers up to lifecycle-tools.ts; the CLI, its
  // user, sits above it (and imports nothing else but the subpath entries).
  ['index.ts', 8.5],
  ['cli/', 9],
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

type Read = (file: string) => string
const readSource: Read = (f) => readFileSync(f, 'utf8')

/** Every relative import in `files`, as `src/`-relative paths (`x.js` read as `x.ts`): the one walker of the rules below. */
function* imports(files: readonly string[], read: Read): Generator<{ from: string; to: string }> {
  for (const file of files) {
    for (const m of read(file).matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'))
      yield { from: relative(SRC, file), to: relative(SRC, target) }
    }
  }
}

/** Every wrong-way import: `from` in a higher or sideways layer than `to`'s. */
function layeringViolations(files: readonly string[], read: Read = readSource): string[] {
  const bad: string[] = []
  for (const { from, to } of imports(files, read)) {
    const [name, rank] = layerOf(join(SRC, from))
    const [toName, toRank] = layerOf(join(SRC, to))
    if (toRank > rank || (toRank === rank && toName !== name)) bad.push(`${from} -> ${to}`)
  }
  return bad
}

const TIER_FOLDERS = ['tiers/module/', 'tiers/isolated/', 'tiers/scripts/'] as const
/** What a tier shows the layers above it: its public entry and its internal face. */
const TIER_FACES = ['index.ts', 'tier.ts']
/**
 * Internal entries: what the CLI needs of a tier beyond its public entry
 * (helpers that are no deployer's business). Not in package.json `exports`;
 * only cli/ may import them.
 */
const CLI_INTERNAL_ENTRIES: readonly string[] = [
  'tiers/scripts/internal.ts',
  'tiers/scripts/interpreter-checks.ts',
]

/** Every import from outside a tier folder into a file that is not one of its faces. */
function tierInternalsReached(files: readonly string[], read: Read = readSource): string[] {
  const bad: string[] = []
  for (const { from, to } of imports(files, read)) {
    const tier = TIER_FOLDERS.find((t) => to.startsWith(t))
    if (tier === undefined || from.startsWith(tier)) continue
    if (from.startsWith('cli/') && CLI_INTERNAL_ENTRIES.includes(to)) continue
    if (!TIER_FACES.includes(to.slice(tier.length))) bad.push(`${from} -> ${to}`)
  }
  return bad
}

/**
 * The stage folders of tier 3, lowest first: what a call may touch
 * (`policy/`), the bubblewrap machinery that enforces it (`sandbox/`), the
 * session workspace at `/work` (`workspace/`), the skill copy at `/skill`
 * (`skill-copy/`), a script's declared requirements (`deps/`), one call
 * from request to outcome (`run/`), the tools the model sees (`tool/`), and
 * the deployer's configuration that assembles them all (`config/`). A
 * stage imports only stages below it, so no two import each other. The
 * files at the tier's root (its faces and shared types) are not stages.
 */
const SCRIPT_STAGES = [
  'policy',
  'sandbox',
  'workspace',
  'skill-copy',
  'deps',
  'run',
  'tool',
  'config',
] as const
const SCRIPTS = 'tiers/scripts/'

/** The stage folder of a `src/`-relative tier-3 path, or undefined for the tier's root files. */
function stageOf(rel: string): number | undefined {
  if (!rel.startsWith(SCRIPTS)) return undefined
  const parts = rel.slice(SCRIPTS.length).split('/')
  if (parts.length < 2) return undefined
  const rank = SCRIPT_STAGES.indexOf(parts[0] as (typeof SCRIPT_STAGES)[number])
  if (rank === -1) throw new Error(`${SCRIPTS}${parts[0]}/ is no stage; add it to SCRIPT_STAGES`)
  return rank
}

/** Every import from one tier-3 stage folder into a later one. */
function stageViolations(files: readonly string[], read: Read = readSource): string[] {
  const bad: string[] = []
  for (const { from, to } of imports(files, read)) {
    const a = stageOf(from)
    const b = stageOf(to)
    if (a !== undefined && b !== undefined && b > a) bad.push(`${from} -> ${to}`)
  }
  return bad
}

/**
 * The package's public entries, read from package.json `exports`
 * (`./dist/x/index.js` is `src/x/index.ts`): what a user of the library can
 * import, and so all the CLI may.
 */
const PUBLIC_ENTRIES: readonly string[] = Object.values(
  JSON.parse(readFileSync(resolve(SRC, '../package.json'), 'utf8')).exports as Record<
    string,
    string | { import?: string }
  >,
)
  .map((e) => (typeof e === 'string' ? undefined : e.import))
  .filter((e): e is string => e?.startsWith('./dist/') === true)
  .map((e) => e.slice('./dist/'.length).replace(/\.js$/, '.ts'))

/**
 * The layers' internal entries (not in package.json `exports`): what the
 * adapters share with a lower layer beyond its public entry, as
 * `tiers/scripts/internal.ts` is the CLI's. The manager's `index.ts` and
 * `lifecycle-tools.ts` are the entries of their layers (the root entry
 * re-exports them, and the adapters sit below the root).
 */
const ADAPTER_ENTRIES: readonly string[] = [
  'common/internal.ts',
  'skill-model/internal.ts',
  'sources/internal.ts',
  'manager/internal.ts',
  'manager/index.ts',
  'lifecycle-tools.ts',
]

/**
 * The users of the library inside src/ (the CLI, each adapter): a file of
 * one may import another folder of src/ only through the public entries or
 * the internal entries listed for it.
 */
const ENTRY_USERS: readonly {
  readonly folder: (rel: string) => string | undefined
  readonly entries: readonly string[]
}[] = [
  { folder: (rel) => (rel.startsWith('cli/') ? 'cli/' : undefined), entries: CLI_INTERNAL_ENTRIES },
  {
    folder: (rel) => /^adapters\/[^/]+\//.exec(rel)?.[0],
    entries: ADAPTER_ENTRIES,
  },
]

/** Every import from the CLI or an adapter into the rest of src/ that is neither a public entry nor one of its internal entries: the one rule. */
function entriesBypassed(files: readonly string[], read: Read = readSource): string[] {
  const bad: string[] = []
  for (const { from, to } of imports(files, read)) {
    for (const user of ENTRY_USERS) {
      const own = user.folder(from)
      if (own === undefined || to.startsWith(own) || PUBLIC_ENTRIES.includes(to)) continue
      if (!user.entries.includes(to)) bad.push(`${from} -> ${to}`)
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

  it.each(CLI_INTERNAL_ENTRIES)(
    "keeps tier 3's internal entry %s to the CLI: not public, and refused to the manager and the adapters",
    (entry) => {
      expect(PUBLIC_ENTRIES).not.toContain(entry)
      const js = entry.replace(/\.ts$/, '.js')
      const files = sources(SRC)
      const planted: Record<string, string> = {
        [join(SRC, 'manager/catalog.ts')]: `import { x } from '../${js}'\n`,
        [join(SRC, 'adapters/mcp/create-skill-mcp-server.ts')]: `import { y } from '../../${js}'\n`,
        [join(SRC, 'cli/list/list-tools.ts')]: `import { z } from '../../${js}'\n`,
      }
      const read = (f: string) => planted[f] ?? readFileSync(f, 'utf8')
      expect(tierInternalsReached(files, read)).toEqual([
        `adapters/mcp/create-skill-mcp-server.ts -> ${entry}`,
        `manager/catalog.ts -> ${entry}`,
      ])
      // The entry rule refuses it to the adapter too; the CLI's is its own.
      expect(entriesBypassed(files, read)).toEqual([
        `adapters/mcp/create-skill-mcp-server.ts -> ${entry}`,
      ])
    },
  )

  it('runs the stage folders of tier 3 one way: policy < sandbox < workspace < skill-copy < deps < run < tool < config', () => {
    expect(stageViolations(sources(SRC))).toEqual([])
  })

  it('catches a stage importing a later one (the pairs that once ran both ways)', () => {
    const files = sources(SRC)
    const planted: Record<string, string> = {
      [join(SRC, 'tiers/scripts/run/run-script-call.ts')]:
        "import { x } from '../tool/script-forge.js'\n",
      [join(SRC, 'tiers/scripts/deps/script-env.ts')]:
        "import { y } from '../config/interpreter-views.js'\n",
      [join(SRC, 'tiers/scripts/policy/policy.ts')]:
        "import type { Z } from '../sandbox/bwrap-args.js'\n",
    }
    const read = (f: string) => planted[f] ?? readFileSync(f, 'utf8')
    expect(stageViolations(files, read).sort()).toEqual([
      'tiers/scripts/deps/script-env.ts -> tiers/scripts/config/interpreter-views.ts',
      'tiers/scripts/policy/policy.ts -> tiers/scripts/sandbox/bwrap-args.ts',
      'tiers/scripts/run/run-script-call.ts -> tiers/scripts/tool/script-forge.ts',
    ])
    expect(() => stageOf('tiers/scripts/extra/x.ts')).toThrow(/no stage/)
  })

  it('lets the CLI import the rest of src/ only through the public entries', () => {
    expect(PUBLIC_ENTRIES).toEqual([
      'index.ts',
      'common/index.ts',
      'sources/index.ts',
      'manifest/index.ts',
      'sources/conformance/index.ts',
      'tiers/isolated/index.ts',
      'tiers/scripts/index.ts',
      'adapters/ai-sdk/index.ts',
      'adapters/mcp/index.ts',
      'adapters/postgres/index.ts',
    ])
    expect(entriesBypassed(sources(SRC))).toEqual([])
  })

  it('lets the adapters import other layers only through public and internal entries', () => {
    expect(entriesBypassed(sources(SRC)).filter((e) => e.startsWith('adapters/'))).toEqual([])
  })

  it('catches an adapter import past an entry, and lets its own folder and the entries be', () => {
    const files = sources(SRC)
    const planted: Record<string, string> = {
      [join(SRC, 'adapters/mcp/serve-stdio.ts')]:
        "import { SerialQueue } from '../../manager/serial-queue.js'\n" +
        "import { x } from './shared-session.js'\n" +
        "import { y } from '../../manager/internal.js'\n" +
        "import { z } from '../../common/index.js'\n",
      [join(SRC, 'adapters/ai-sdk/to-ai-sdk-tool.ts')]:
        "import type { Tool } from '../../common/tool.js'\n" +
        "import { w } from '../mcp/shared-session.js'\n",
      [join(SRC, 'adapters/postgres/spool-failed.ts')]:
        "import { v } from '../../tiers/scripts/internal.js'\n",
    }
    const read = (f: string) => planted[f] ?? readFileSync(f, 'utf8')
    expect(entriesBypassed(files, read).sort()).toEqual([
      'adapters/ai-sdk/to-ai-sdk-tool.ts -> adapters/mcp/shared-session.ts',
      'adapters/ai-sdk/to-ai-sdk-tool.ts -> common/tool.ts',
      'adapters/mcp/serve-stdio.ts -> manager/serial-queue.ts',
      'adapters/postgres/spool-failed.ts -> tiers/scripts/internal.ts',
    ])
  })

  it('catches a CLI import past a public entry', () => {
    const files = sources(SRC)
    const planted: Record<string, string> = {
      [join(SRC, 'cli/run/run-command.ts')]:
        "import { runSkillScript } from '../../tiers/scripts/run/run-skill-script.js'\n" +
        "import { x } from '../shared/parse-args.js'\n" +
        "import { y } from '../../index.js'\n",
      [join(SRC, 'cli/shared/collect-skills.ts')]:
        "import type { SkillSource } from '../../sources/types.js'\n",
    }
    const read = (f: string) => planted[f] ?? readFileSync(f, 'utf8')
    expect(entriesBypassed(files, read)).toEqual([
      'cli/run/run-command.ts -> tiers/scripts/run/run-skill-script.ts',
      'cli/shared/collect-skills.ts -> sources/types.ts',
    ])
  })
})
