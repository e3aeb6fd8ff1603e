import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import {
  createScriptSandbox,
  type ProvisionBuild,
  type ScriptSandbox,
  scriptInterpreters,
} from '../../src/tiers/scripts/index.js'
import { buildProbeWheel } from '../helpers/probe-wheel.js'
import { cacheWithInstaller } from '../helpers/shared-installer.js'

// Issue 37.8: while a script's environment builds, the MCP client that asked
// for progress hears it ("building a python environment", fixed words, never
// the requirements), and a second call of the same set builds nothing.

const onLinux = process.platform === 'linux'
const PYTHON = scriptInterpreters().python3?.[0]
const root = mkdtempSync(join(tmpdir(), 'skillhost-mcp-build-'))
const builds: ProvisionBuild[] = []
let sandbox: ScriptSandbox
let server: McpHttpServer

beforeAll(async () => {
  if (!onLinux || PYTHON === undefined) return
  chmodSync(root, 0o755)
  const wheels = join(root, 'wheels')
  mkdirSync(wheels)
  buildProbeWheel(PYTHON, wheels)
  const skill = join(root, 'skills/probe')
  mkdirSync(join(skill, 'scripts'), { recursive: true })
  writeFileSync(join(skill, 'SKILL.md'), '---\nname: probe\ndescription: Uses a package.\n---\n')
  writeFileSync(
    join(skill, 'scripts/use.py'),
    '# /// script\n# dependencies = ["skillhost-probe-pkg"]\n# ///\nimport skillhost_probe_pkg as p\nprint(p.VALUE)\n',
  )
  sandbox = await createScriptSandbox({
    maxTimeoutSeconds: 60,
    defaultTimeoutSeconds: 60,
    provision: {
      // With the run's pip installer in it: the subject is the set's build progress.
      cacheDir: await cacheWithInstaller(join(root, 'cache'), PYTHON),
      index: { findLinks: wheels },
      onBuild: (event) => void builds.push(event),
    },
  })
  server = await serveMcpHttp({
    createManager: () =>
      createSkillManager({
        sources: [new FileSystemSkillSource({ roots: [join(root, 'skills')] })],
        gate: async () => {},
        scripts: { ...sandbox.config, undeclared: 'allow' },
      }),
  })
})
afterAll(async () => {
  await server?.close()
  await sandbox?.dispose()
  rmSync(root, { recursive: true, force: true })
})

describe.skipIf(!onLinux || PYTHON === undefined)(
  'MCP progress while an environment builds',
  () => {
    it('the call that builds says so; the second call finds the cache and builds nothing', async () => {
      const client = new Client({ name: 'build-progress', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(server.url))
      await client.callTool({ name: 'load_skill', arguments: { skill: 'probe' } })
      const call = async () => {
        const heard: Progress[] = []
        const result = await client.callTool(
          { name: 'run_probe_script', arguments: { script: 'scripts/use.py' } },
          undefined,
          { onprogress: (p) => void heard.push(p), timeout: 120_000 },
        )
        return { result, messages: heard.map((p) => p.message) }
      }
      const first = await call()
      expect(first.result.isError, JSON.stringify(first.result)).toBeFalsy()
      expect(first.messages[0]).toBe('started')
      expect(first.messages).toContain('building a python environment')
      expect(first.messages.at(-1)).toBe('finished')
      // Fixed words only: never the requirement a skill named.
      expect(first.messages.join(' ')).not.toContain('skillhost-probe-pkg')
      expect(builds.filter((b) => b.phase === 'started')).toHaveLength(1)
      const second = await call()
      expect(second.result.isError).toBeFalsy()
      expect(second.messages).not.toContain('building a python environment')
      // Counted: the same set built once.
      expect(builds.filter((b) => b.phase === 'started')).toHaveLength(1)
      expect(builds.map((b) => b.phase)).toEqual(['started', 'built'])
      await client.close()
    }, 180_000)
  },
)
