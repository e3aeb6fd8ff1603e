// The model's catalog (issue 38): tokens per <available_skills> row on a real
// collection, the block at --window 200000, and how much of each turn's
// system prompt stays byte-identical across ten turns of loads and unloads
// (the prefix a prompt cache reuses). Tokens are estimated as characters / 4,
// the rule the budget itself uses.
// Run after `npx tsc -p tsconfig.build.json`:
//   node bench/catalog.mjs [ROOT]   (ROOT: e.g. a checkout of anthropics/skills' skills/ folder;
//                                    default examples/skills)
import { mkdtempSync, rmSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createSkillTools } from '../dist/adapters/ai-sdk/index.js'
import { createSkillManager, FileSystemSkillSource } from '../dist/index.js'
import { machine, percentile, writeSection } from './lib.mjs'

const root = process.argv[2] ?? fileURLToPath(new URL('../examples/skills', import.meta.url))
const label = process.argv[3] ?? root
const WINDOW = 200_000
const BASE = 'You are a careful assistant.'

const managerOver = (roots) =>
  createSkillManager({
    sources: [new FileSystemSkillSource({ roots })],
    gate: async () => {},
    defaultChannel: 'inline',
  })

/** Per row: its characters, and those beyond the name and description texts. */
function rows(text) {
  return [
    ...text.matchAll(
      /<skill>\n<name>([^<]*)<\/name>\n<description>([^<]*)<\/description>\n(?:<location>[^<]*<\/location>\n)?<\/skill>\n/g,
    ),
  ].map((m) => ({
    chars: m[0].length,
    overhead: m[0].length - m[1].length - m[2].length,
  }))
}

const tokens = (chars) => (chars / 4).toFixed(1)

function rowFigures(name, out) {
  const r = rows(`${out.text}\n`)
  const chars = r.reduce((a, b) => a + b.chars, 0)
  const overhead = r.reduce((a, b) => a + b.overhead, 0)
  return `| ${name} | ${out.total} | ${out.text.length.toLocaleString('en-US')} | ${r.length} | ${out.namesOnly} | ${out.notShown} | ${tokens(chars / r.length)} | ${tokens(overhead / r.length)} |`
}

const manager = await managerOver(root)
const n = manager.availableSkills().total
const table = [
  '| block | skills | characters | described | names only | not shown | tokens per row | row overhead beyond name + description (tokens) |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  rowFigures('no budget, `locations: none` (default)', manager.availableSkills()),
  rowFigures("no budget, `locations: 'path'`", manager.availableSkills({ locations: 'path' })),
  rowFigures(
    `\`window: ${WINDOW}\` (8,000 characters)`,
    manager.availableSkills({ window: WINDOW }),
  ),
  rowFigures(
    `\`window: ${WINDOW}\`, \`locations: 'path'\``,
    manager.availableSkills({ window: WINDOW, locations: 'path' }),
  ),
]

// Ten turns of a session: loads, unloads and quiet turns (skill numbers in catalog order).
const ids = manager
  .search({ forModel: true })
  .entries.map((e) => e.id)
  .slice(0, 4)
const SCHEDULE = [
  ['load', 0],
  ['load', 1],
  [],
  ['unload', 0],
  ['load', 2],
  [],
  ['load', 3],
  ['unload', 1],
  ['unload', 2],
  ['load', 0],
]
const ctx = manager.createTurnContext()
const st = createSkillTools({ manager, ctx, system: BASE, catalog: { window: WINDOW } })
const catalog = manager.availableSkills({ window: WINDOW }).text
const prompts = [st.system()]
const did = []
for (const [what, i] of SCHEDULE) {
  if (what === 'load') await manager.load(ids[i], ctx)
  if (what === 'unload') await manager.unload(ids[i], ctx)
  did.push(what ? `${what} ${ids[i]}` : 'nothing loaded or unloaded')
  prompts.push(st.system())
}
const common = (a, b) => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
const turns = [
  '| turn | change | system prompt (characters) | identical prefix with the turn before | share of this prompt | share of the turn before reused |',
  '|---:|---|---:|---:|---:|---:|',
]
const shares = []
for (let t = 1; t < prompts.length; t++) {
  const same = common(prompts[t - 1], prompts[t])
  shares.push(same / prompts[t].length)
  turns.push(
    `| ${t} | ${did[t - 1]} | ${prompts[t].length.toLocaleString('en-US')} | ${same.toLocaleString('en-US')} | ${((100 * same) / prompts[t].length).toFixed(1)} % | ${((100 * same) / prompts[t - 1].length).toFixed(1)} % |`,
  )
}
const catalogStable = prompts.every((p) => p.startsWith(`${BASE}\n\n${catalog}`))
st.dispose()
await manager.dispose()

// A flood: 3,000 generated skills at the same window.
const flood = mkdtempSync(join(tmpdir(), 'skillhost-bench-catalog-'))
for (let i = 0; i < 3_000; i++) {
  const name = `skill-${String(i).padStart(5, '0')}`
  await mkdir(join(flood, name))
  await writeFile(
    join(flood, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: Handles task family ${i % 97} with scripts; use it when the user asks about item ${i}.\n---\n# ${name}\n`,
  )
}
const big = await managerOver(flood)
let start = performance.now()
const first = big.availableSkills({ window: WINDOW })
const firstMs = performance.now() - start
const again = []
for (let i = 0; i < 200; i++) {
  start = performance.now()
  big.availableSkills({ window: WINDOW })
  again.push(performance.now() - start)
}
await big.dispose()
rmSync(flood, { recursive: true, force: true })

writeSection(
  "The model's catalog (issue 38)",
  `
Machine: ${machine()}.
Command: \`npx tsc -p tsconfig.build.json && node bench/catalog.mjs ROOT\` with ROOT = ${label} (${n} skills; the skills' files are not in this repository). Tokens are characters / 4, the rule the budget uses (no tokenizer).

${table.join('\n')}

Before this issue \`skillhost prompt\` printed every row with its \`<location>\` (the absolute SKILL.md path); the issue measured about 149 tokens a row there. Rows now leave the path out unless asked (\`--locations\`, \`locations: 'path'\`).

Prefix stability: the AI SDK adapter's system prompt (base prompt, \`<available_skills>\` at \`window: ${WINDOW}\`, then the loaded skills' bodies) over ten turns of loads, unloads and quiet turns. The catalog bytes were ${catalogStable ? 'identical in every turn' : 'NOT identical in every turn'}; the share of each turn's prompt that is a byte-identical prefix of the turn before's is below (min ${(100 * Math.min(...shares)).toFixed(1)} %, median ${(100 * percentile(shares, 50)).toFixed(1)} %). A load appends its body at the end (the turn before is a prefix but for the closing tag); an unload rewrites only what follows the removed body; the base prompt and the catalog are never rewritten.

${turns.join('\n')}

A flood of 3,000 generated skills at \`window: ${WINDOW}\`: ${first.text.length.toLocaleString('en-US')} characters, ${first.described} described, ${first.namesOnly} by name only, ${first.notShown} not shown (counted in the closing line); first rendering ${firstMs.toFixed(1)} ms, then ${percentile(again, 50).toFixed(3)} ms p50 while the skills stay the same (the rendering is kept).
`,
)
console.log(table.join('\n'))
console.log(turns.join('\n'))
console.log({
  catalogStable,
  firstMs,
  againP50: percentile(again, 50),
  first: { ...first, text: first.text.length },
})
