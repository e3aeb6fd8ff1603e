// Issue 41 item 3: what the spans cost when no OpenTelemetry SDK is registered (the API's no-op).
// Paired: the module-tool wrapper with tracing (this build, ../dist) against the same wrapper
// without tracing code (a build of the commit before it, SKILLHOST_BASE_DIST=/path/to/dist/index.js),
// trivial handler, interleaved in one process; CPU time of the process per call, not wall time.
// Run after `npx tsc -p tsconfig.build.json` here and in the base checkout:
//   SKILLHOST_BASE_DIST=/tmp/base/dist/index.js node bench/tracing-noop.mjs
const [withT, without] = await Promise.all([
  import('../dist/index.js'),
  import(process.env.SKILLHOST_BASE_DIST ?? '../../skillhost-base/dist/index.js'),
])
async function setup(lib) {
  const schema = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } }
  const raw = new lib.Tool({
    name: 'echo',
    description: 'echo',
    inputSchema: schema,
    handler: ({ text }) => text,
  })
  const source = new lib.InMemorySkillSource({
    skills: [{ name: 'bench', description: 'bench', body: '# b\n', tools: [raw] }],
  })
  const manager = await lib.createSkillManager({ sources: [source], gate: async () => {} })
  const ctx = manager.createTurnContext()
  await manager.load('bench', ctx)
  return { lib, tool: ctx.tools.get('echo'), manager }
}
const a = await setup(withT)
const b = await setup(without)
// Calls per ms over a fixed count of calls (batches of 200 on a fresh spool).
async function throughput(s, calls) {
  const args = { text: 'hello' }
  const start = process.cpuUsage()
  for (let done = 0; done < calls; done += 200) {
    const turn = s.lib.createTurnContext({ spool: new s.lib.MemorySpoolStore() })
    for (let i = 0; i < 200; i++) await s.tool.execute(args, turn)
  }
  // CPU time of this process (user + system), not wall time: on a machine
  // loaded 10x its cores, waiting for a core is most of the wall time.
  const used = process.cpuUsage(start)
  return calls / ((used.user + used.system) / 1000)
}
for (let i = 0; i < 3; i++) {
  await throughput(a, 20000)
  await throughput(b, 20000)
}
// Many short interleaved pairs: the machine's load changes between pairs, rarely within one.
const ratios = []
let sumA = 0
let sumB = 0
for (let r = 0; r < 120; r++) {
  const aFirst = r % 2 === 0
  const x = await throughput(aFirst ? a : b, 4000)
  const y = await throughput(aFirst ? b : a, 4000)
  const [ta, tb] = aFirst ? [x, y] : [y, x]
  ratios.push(ta / tb)
  sumA += 4000 / ta
  sumB += 4000 / tb
}
ratios.sort((p, q) => p - q)
const q = (f) => ratios[Math.floor(f * (ratios.length - 1))].toFixed(3)
console.log(
  JSON.stringify({
    pairs: ratios.length,
    median: q(0.5),
    p25: q(0.25),
    p75: q(0.75),
    aggregate: (sumB / sumA).toFixed(3),
    withCpuUsPerCall: ((sumA * 1000) / (120 * 4000)).toFixed(2),
    withoutCpuUsPerCall: ((sumB * 1000) / (120 * 4000)).toFixed(2),
  }),
)
await a.manager.dispose()
await b.manager.dispose()
