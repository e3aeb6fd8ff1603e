import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { serveArgs, type Target } from './interop.js'
import { ROOT } from './spawn-serve.js'

// The official SDK 2.x client of the interop suites, apart from interop.ts's
// fixtures and serve helpers: a file that drives another client (the
// inspector) or none does not load this SDK.

/** The protocol era an SDK 2.x client asks for: its default (2025-11-25, initialize) or 2026-07-28 pinned. */
export type Era = 'legacy' | '2026-07-28'

/** The official SDK 2.x client, connected to `target` on `era`. */
export async function connectSdk2(target: Target, era: Era, name: string): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } },
  )
  const transport =
    'http' in target
      ? new StreamableHTTPClientTransport(target.http)
      : new StdioClientTransport({
          command: process.execPath,
          args: ['dist/cli/main.js', 'serve', ...serveArgs(target.stdio)],
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
          stderr: 'ignore',
        })
  await client.connect(transport)
  return client
}
