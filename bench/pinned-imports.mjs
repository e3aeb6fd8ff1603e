// Pinned imports: the extra cost of importing a locked skill's module graph
// (every file of the folder hashed as Node loads it, every import leaving the
// folder checked) against the same graph imported unlocked, in the same run.
// The graph: tools.mjs importing 20 modules of ~4 KB each, plus `skillhost`
// (the host's own package, resolved through the bare-specifier check). Each
// import is of a fresh copy of the folder, so Node loads every file (as for
// a skill seen the first time); rounds interleave both paths so drift hits both.
// Needs Node.js 22.15+ (module.registerHooks). Run after
// `npx tsc -p tsconfig.build.json`: node bench/pinned-imports.mjs
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import module from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { scanSkillFolder } from '../dist/sources/discovery/scan-skill-folder.js'
import { SkillDigests } from '../dist/sources/lock/skill-digests.js'
import { importModuleTools } from '../dist/sources/reading/import-module-tools.js'
import { resolveSourceLimits } from '../dist/sources/source-limits.js'
import { machine, percentile, writeSection } from './lib.mjs'

if (typeof module.registerHooks !== 'function') {
  console.log(
    `pinned-imports: Node ${process.version} has no module.registerHooks; run it on 22.15+`,
  )
  process.exit(0)
}

const FILES = 20
const ROUNDS = 15
const PER_ROUND = 20

const repo = fileURLToPath(new URL('..', import.meta.url))
const base = await mkdtemp(join(tmpdir(), 'skillhost-bench-pinned-'))
await mkdir(join(base, 'node_modules'))
await symlink(await realpath(repo), join(base, 'node_modules/skillhost'))
const filler = `// ${'x'.repeat(72)}\n`.repeat(52)
const imports = Array.from({ length: FILES }, (_, i) => `import { v${i} } from './m${i}.mjs'`)
const sum = Array.from({ length: FILES }, (_, i) => `v${i}`).join(' + ')
const limits = resolveSourceLimits()

/** A fresh copy of the graph (Node caches a module by URL: a new folder is loaded whole). */
async function graph(name) {
  const dir = join(base, name)
  await mkdir(dir)
  for (let i = 0; i < FILES; i++)
    await writeFile(join(dir, `m${i}.mjs`), `${filler}export const v${i} = ${i}\n`)
  await writeFile(
    join(dir, 'tools.mjs'),
    `import { Tool } from 'skillhost'\n${imports.join('\n')}\nexport const sum = new Tool({ name: 'sum', description: 'Sums.', inputSchema: { type: 'object' }, handler: () => ${sum} })\n`,
  )
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: A graph.\n---\nBody.\n`)
  const scan = await scanSkillFolder(dir, limits)
  return { dir, scan }
}

let n = 0
/** `count` fresh graphs, each made before the clock starts; locked ones with their pinned set. */
async function graphs(locked, count) {
  const out = []
  for (let i = 0; i < count; i++) {
    n += 1
    const { dir, scan } = await graph(`g${n}`)
    // Both paths read the folder once before the clock starts (a load's digest check does).
    const digests = await new SkillDigests(limits.maxFileBytes).fileDigests(dir, scan)
    const pin = locked ? { id: 'graph', dir, scan, ...digests } : undefined
    out.push({ main: join(dir, 'tools.mjs'), pin })
  }
  return out
}

async function timeImports(locked, count) {
  const todo = await graphs(locked, count)
  const start = performance.now()
  for (const g of todo) await importModuleTools(g.main, 'v1', 'tools.mjs', g.pin)
  return (performance.now() - start) / count
}

// What a locked load does once per skill version before importing: hash every file.
const hashMs = []
const one = await graph('hash')
for (let i = 0; i < 50; i++) {
  const start = performance.now()
  await new SkillDigests(limits.maxFileBytes).fileDigests(one.dir, one.scan)
  hashMs.push(performance.now() - start)
}

// Warm-up of both paths; the first locked import puts the hooks in place for
// the process, so every unlocked figure is with them in place (they pass an
// unlocked graph through); before any locked import no hook runs at all.
for (let r = 0; r < 3; r++) await timeImports(false, PER_ROUND)
await timeImports(true, PER_ROUND)
const unlocked = []
const locked = []
const ratios = []
for (let r = 0; r < ROUNDS; r++) {
  // Alternating which goes first, so neither always follows the other's garbage.
  const u = r % 2 === 0 ? await timeImports(false, PER_ROUND) : undefined
  const l = await timeImports(true, PER_ROUND)
  const u2 = u ?? (await timeImports(false, PER_ROUND))
  unlocked.push(u2)
  locked.push(l)
  ratios.push(l / u2)
}
await rm(base, { recursive: true, force: true })

const ms = (v) => `${v.toFixed(2)} ms`
const med = (a) => percentile(a, 50)
const rows = [
  ['unlocked, hooks in place (they pass it through)', ms(med(unlocked))],
  ['locked (every file hashed on load, imports checked)', ms(med(locked))],
]
const table = rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')
console.log(table)
console.log(`ratio locked/unlocked (median of per-round ratios): ${med(ratios).toFixed(2)}`)
writeSection(
  'Pinned imports (tier 1, locked skills)',
  `Machine: ${machine()}.
Command: \`node bench/pinned-imports.mjs\` on Node.js 22.15+ (\`npm run bench -- pinned-imports\` with such a Node first on PATH).
Graph: \`tools.mjs\` importing ${FILES} modules of ~4 KB each and \`skillhost\` (the host's own package,
allowed by the bare-specifier check); every import is of a fresh copy of the folder, so Node loads each file.
${ROUNDS} interleaved rounds of ${PER_ROUND} imports (which path goes first alternates).

| import of the graph | ms per graph (median round) |
|---|---:|
${table}

Ratio locked/unlocked (median of per-round ratios, same run): **${med(ratios).toFixed(2)}**.
Hashing the folder once per skill version for the pinned set (\`SkillDigests.fileDigests\`, ${FILES + 2} files): ${ms(med(hashMs))} (median of 50).`,
)
