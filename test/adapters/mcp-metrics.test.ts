import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { createSkillMcpServer } from '../../src/adapters/mcp/index.js'
import { SkillHostMetrics } from '../../src/common/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { echoTool } from '../helpers/manager-fixtures.js'
import { parseSamples, promtoolCheck } from '../helpers/prometheus.js'

const SKILLS = 10_000
const CAP = 10
const CALLED = 30

/** A catalog of `SKILLS` skills, each id 64 characters (the longest a name may be), one tool each. */
function hostileSource(): InMemorySkillSource {
  return new InMemorySkillSource({
    skills: Array.from({ length: SKILLS }, (_, i) => ({
      name: `${'a'.repeat(58)}-${String(i).padStart(5, '0')}`,
      description: `Skill ${i}.`,
      body: '# A skill\n\nCall echo.',
      channel: 'inline' as const,
      tools: [echoTool()],
    })),
  })
}

describe('tool-call metrics through the MCP server (issue 41 item 2)', () => {
  it('a hostile catalog (10,000 skills, 64-character ids) grows the skill label to the cap and no further', async () => {
    const metrics = new SkillHostMetrics({ maxSkillLabels: CAP })
    const manager = await createSkillManager({
      sources: [hostileSource()],
      gate: async () => undefined,
    })
    const session = createSkillMcpServer({ manager, disposeManager: true, metrics })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    const client = new Client({ name: 'metrics-test', version: '1.0.0' })
    await client.connect(clientSide)
    try {
      const ids = manager.search({ limit: SKILLS }).entries.map((r) => r.id)
      expect(ids.length).toBe(SKILLS)
      for (const id of ids.slice(0, CALLED)) {
        const loaded = await client.callTool({ name: 'load_skill', arguments: { skill: id } })
        expect(loaded.isError, JSON.stringify(loaded)).toBeFalsy()
        const echoed = (await client.callTool({
          name: 'echo',
          arguments: { text: 'hi' },
        })) as CallToolResult
        expect(echoed.isError).toBeFalsy()
        await client.callTool({ name: 'unload_skill', arguments: { skill: id } })
      }
      const text = await metrics.registry.metrics()
      expect(promtoolCheck(text).status).toBe(0)
      const samples = parseSamples(text)
      const skillSeries = [...samples.keys()].filter((k) =>
        k.startsWith('skillhost_tool_calls_total{kind="module"'),
      )
      // CAP ids and `other`: the bound, however many skills were called.
      expect(skillSeries.length).toBe(CAP + 1)
      expect(
        samples.get('skillhost_tool_calls_total{kind="module",outcome="ok",skill="other"}'),
      ).toBe(CALLED - CAP)
      expect(
        samples.get('skillhost_tool_calls_total{kind="lifecycle",outcome="ok",skill="none"}'),
      ).toBe(2 * CALLED)
      expect(samples.get('skillhost_tool_call_duration_seconds_count{tier="module"}')).toBe(CALLED)
    } finally {
      await client.close()
      await session.close()
    }
  }, 120_000)
})
