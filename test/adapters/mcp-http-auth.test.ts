import { describe, expect, it } from 'vitest'
import { serveMcpHttp } from '../../src/adapters/mcp/serve-http.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { postMcp } from '../helpers/mcp-http-requests.js'

const post = postMcp

describe('serveMcpHttp bearer token (issue 10 item 21)', () => {
  it('no token or a wrong token gets 401 with WWW-Authenticate; the right one initializes', async () => {
    const server = await serveMcpHttp({
      host: '127.0.0.1',
      token: 's3cret',
      createManager: () =>
        createSkillManager({
          sources: [new InMemorySkillSource({ skills: [] })],
          gate: async () => undefined,
        }),
      serverInfo: { name: 't', version: '1' },
    })
    try {
      const none = await post(server.url)
      expect(none.status).toBe(401)
      expect(none.headers.get('www-authenticate')).toBe('Bearer')
      expect((await post(server.url, 'Bearer wrong')).status).toBe(401)
      const ok = await post(server.url, 'Bearer s3cret')
      expect(ok.status).toBe(200)
      await ok.body?.cancel()
    } finally {
      await server.close()
    }
  })
})
