import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { Tool } from '../../src/common/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

/** A server from `serveEchoHttp` and the count of `echo` calls it ran. */
export interface EchoHttpServer {
  readonly server: McpHttpServer
  /** `calls`: how many times `echo`'s handler ran (a refused request runs nothing). */
  readonly counts: { calls: number }
}

/**
 * Serves MCP over real HTTP on 127.0.0.1 with no skills and the host tool
 * `echo` (no arguments, answers `ok`, counted), beside `more` host tools:
 * the one home of the server the 2026-07-28 request suites call. The
 * caller closes `server`.
 */
export async function serveEchoHttp(more: Tool[] = []): Promise<EchoHttpServer> {
  const counts = { calls: 0 }
  const echo = new Tool({
    name: 'echo',
    description: 'Answers ok.',
    inputSchema: { type: 'object', properties: {} },
    handler: async () => {
      counts.calls++
      return 'ok'
    },
  })
  const server = await serveMcpHttp({
    host: '127.0.0.1',
    hostTools: [echo, ...more],
    createManager: async () =>
      createSkillManager({
        sources: [new InMemorySkillSource({ skills: [] })],
        gate: async () => undefined,
      }),
  })
  return { server, counts }
}
