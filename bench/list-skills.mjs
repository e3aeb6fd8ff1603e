// list_skills over a 10,000-skill catalog: the real lifecycle tool (gate,
// validation, search, JSON) with a query, vs a bare baseline in the same run
// (a plain filter over an array of the same rows, no tool). Target ≤ 5 ms p50.
// Run after `npx tsc -p tsconfig.build.json`: node bench/list-skills.mjs
import { createSkillManager, forgeSkillTools, InMemorySkillSource } from '../dist/index.js'
import { machine, percentile, writeSection } from './lib.mjs'

const COUNT = 10_000
const words = [
  'pdf',
  'json',
  'report',
  'deploy',
  'review',
  'diagram',
  'invoice',
  'schema',
  'search',
  'audit',
]
const skills = Array.from({ length: COUNT }, (_, i) => ({
  name: `skill-${i}`,
  description: `Handles ${words[i % words.length]} work for team ${i % 97}; use it when asked about ${words[(i * 7) % words.length]}.`,
  body: '# body\n',
}))
const source = new InMemorySkillSource({ skills })
const manager = await createSkillManager({ sources: [source], gate: async () => {} })
const listSkills = forgeSkillTools(manager)[0]
const ctx = manager.createTurnContext()
const queries = ['invoice', 'team 42', 'SKILL-99', 'nothing-matches-this', 'audit work']

async function timeIt(fn, rounds) {
  const samples = []
  for (let i = 0; i < rounds; i++) {
    const t = performance.now()
    await fn(queries[i % queries.length])
    samples.push(performance.now() - t)
  }
  return samples
}
const rows = skills.map((s) => ({ id: s.name, name: s.name, description: s.description }))
const bare = async (q) => {
  const needle = q.toLowerCase()
  return JSON.stringify(
    rows
      .filter((r) => `${r.id}\n${r.name}\n${r.description}`.toLowerCase().includes(needle))
      .slice(0, 50),
  )
}
const tool = (q) => listSkills.execute({ query: q }, ctx)
await timeIt(bare, 50)
await timeIt(tool, 50)
const base = await timeIt(bare, 300)
const real = await timeIt(tool, 300)
await manager.dispose()
const p = (s, q) => percentile(s, q).toFixed(2)
const table = `| path | p50 | p95 |
|---|---:|---:|
| bare filter over rows (baseline) | ${p(base, 50)} ms | ${p(base, 95)} ms |
| \`list_skills\` with a query | ${p(real, 50)} ms | ${p(real, 95)} ms |

Ratio list_skills/baseline at p50: ${(percentile(real, 50) / percentile(base, 50)).toFixed(2)}. Target ≤ 5 ms p50: ${percentile(real, 50) <= 5 ? 'met' : 'NOT met'}.`
console.log(table)
writeSection(
  'list_skills on 10,000 skills',
  `Machine: ${machine()}.
Command: \`npm run bench -- list-skills\`. 10,000 skills in an InMemorySkillSource; five rotating queries,
first page of 50. The baseline lowercases and filters the same rows on every call, as a naive host would.

${table}`,
)
