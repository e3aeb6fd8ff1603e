import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import { createSkillMcpServer } from '../../src/adapters/mcp/index.js'
import { personText, renderError, SkillHostError } from '../../src/common/errors.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'
import { withWorkspaceDir } from '../../src/tiers/scripts/internal.js'

// A deployer whose folders carry every character the old redaction pattern
// split on (a space, é, '(', ',', '#'): skill root and workspace live under
// it. Every error a model can provoke through its tools is collected as the
// model receives it (MCP tool results, renderError text, JSON of the error)
// and searched for any fragment of that folder. Messages are safe by
// construction, so no pattern is involved: a fragment found is a site that
// put a host path into a model-facing message.
const linux = process.platform === 'linux'
const top = mkdtempSync(join(tmpdir(), 'skillhost-leak-'))
const deployer = join(top, 'Jane Doe', 'clients', 'acme secret (é,#)')
const roots = join(deployer, 'skills')
const wsDir = join(deployer, 'ws')
const FRAGMENTS = [basename(top), 'Jane', 'Doe', 'clients', 'acme', 'secret (', 'é,#']
afterAll(() => rmSync(top, { recursive: true, force: true }))

function write(rel: string, text: string): void {
  const path = join(roots, rel)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

write(
  'leaky/SKILL.md',
  '---\nname: leaky\ndescription: Fails in every way a script can.\n---\nRun scripts/fail.py.\n',
)
write('leaky/scripts/fail.py', 'import os\ndef inner():\n    open("missing-input.txt")\ninner()\n')
write('leaky/scripts/fail.js', "function inner() {\n  throw new Error('boom')\n}\ninner()\n")
write('leaky/scripts/where.sh', '#!/bin/sh\npwd\nls -d /skill /work\nexit 3\n')
write('leaky/scripts/mounts.sh', '#!/bin/sh\ncat /proc/self/mountinfo > mountinfo.txt\n')
write(
  'broken-sidecar/SKILL.md',
  '---\nname: broken-sidecar\ndescription: Its sidecar is invalid.\n---\nbody\n',
)
write('broken-sidecar/skillhost.yaml', 'tools:\n  - name: 7\n    kind: nonsense\n')
write(
  'bad-module/SKILL.md',
  '---\nname: bad-module\ndescription: Its module cannot be imported.\n---\nbody\n',
)
write('bad-module/skillhost.yaml', 'module: tools.mjs\n')
// Node's own error names the host file it could not find: the cause, never the message.
write('bad-module/tools.mjs', "import './does-not-exist.mjs'\nexport const x = 1\n")

function leaks(text: string): string[] {
  return FRAGMENTS.filter((f) => text.includes(f))
}

describe.skipIf(!linux)('no host path reaches the model, whatever the folder is called', () => {
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    mkdirSync(wsDir, { recursive: true })
    // The sandbox runs as another uid when the host is root: it must traverse and write.
    for (const dir of [top, join(top, 'Jane Doe'), join(top, 'Jane Doe', 'clients'), deployer])
      chmodSync(dir, 0o755)
    chmodSync(wsDir, 0o777)
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
  })
  afterAll(async () => sandbox?.dispose())

  async function connect() {
    const manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [roots], importModules: true })],
      gate: async () => undefined,
      scripts: withWorkspaceDir({ ...sandbox.config, undeclared: 'allow' }, wsDir),
    })
    const session = createSkillMcpServer({ manager, disposeManager: true })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    const client = new Client({ name: 'leak-test', version: '1.0.0' })
    await client.connect(clientSide)
    return {
      manager,
      call: async (name: string, args: Record<string, unknown>) =>
        JSON.stringify(await client.callTool({ name, arguments: args })),
      async close() {
        await client.close()
        await session.close()
      },
    }
  }

  it('keeps every model-facing error free of the deployer folder, over MCP and in renderError', async () => {
    const mcp = await connect()
    const seen: Record<string, string> = {}
    try {
      seen.readMissing = await mcp.call('workspace_read', { path: 'no/such/file.txt' })
      seen.writeRefused = await mcp.call('workspace_write', { path: '../escape.txt', content: 'x' })
      seen.writeGit = await mcp.call('workspace_write', { path: '.git/config', content: 'x' })
      seen.list = await mcp.call('workspace_list', {})
      seen.catalog = await mcp.call('list_skills', {})
      seen.loadSidecar = await mcp.call('load_skill', { skill: 'broken-sidecar' })
      seen.loadModule = await mcp.call('load_skill', { skill: 'bad-module' })
      seen.loadLeaky = await mcp.call('load_skill', { skill: 'leaky' })
      seen.traceback = await mcp.call('run_leaky_script', { script: 'scripts/fail.py' })
      seen.nodeTrace = await mcp.call('run_leaky_script', { script: 'scripts/fail.js' })
      seen.where = await mcp.call('run_leaky_script', { script: 'scripts/where.sh' })
      seen.noScript = await mcp.call('run_leaky_script', { script: 'scripts/none.py' })
      seen.readFile = await mcp.call('read_skill_file', { skill: 'leaky', path: 'nope.md' })
    } finally {
      await mcp.close()
    }
    for (const [site, text] of Object.entries(seen)) expect(leaks(text), site).toEqual([])
    // Each site really failed (a test that cannot fail is a defect).
    expect(seen.readMissing).toContain('"isError":true')
    expect(seen.writeRefused).toContain('E_SKILL_SOURCE_PATH_REJECTED')
    // Refused at discovery (its sidecar is invalid), so not offered at all.
    expect(seen.loadSidecar).toContain('E_SKILL_NOT_FOUND')
    expect(seen.catalog).toContain('leaky')
    expect(seen.loadModule).toContain('could not be imported')
    expect(seen.traceback).toContain('E_SKILL_SCRIPT_FAILED')
    // A Python traceback keeps its sandbox frames: /skill/... is not a host path.
    expect(seen.traceback).toContain('/skill/scripts/fail.py')
    expect(seen.traceback).not.toContain('<path>')
    expect(seen.nodeTrace).toContain('/skill/scripts/fail.js:2')
    expect(seen.nodeTrace).not.toContain('<path>')
    expect(seen.where).toContain('/work')
  })

  it('keeps the AI SDK adapter’s tool errors free of it too (message, string and JSON)', async () => {
    const manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [roots], importModules: true })],
      gate: async () => undefined,
      scripts: withWorkspaceDir({ ...sandbox.config, undeclared: 'allow' }, wsDir),
    })
    const ctx = manager.createTurnContext()
    const skills = createSkillTools({ manager, ctx })
    const call = async (name: string, input: Record<string, unknown>) => {
      const execute = skills.tools[name]?.execute
      if (execute === undefined) throw new Error(`no tool ${name}`)
      return execute(input, { toolCallId: 't', messages: [] }).then(
        (ok: unknown) => JSON.stringify(ok),
        (err: unknown) => `${String(err)} ${(err as Error).message} ${JSON.stringify(err)}`,
      )
    }
    try {
      const seen = [
        await call('workspace_read', { path: 'no/such/file.txt' }),
        await call('load_skill', { skill: 'bad-module' }),
        await call('load_skill', { skill: 'leaky' }),
      ]
      seen.push(await call('run_leaky_script', { script: 'scripts/fail.py' }))
      for (const text of seen) expect(leaks(text), text).toEqual([])
      expect(seen[0]).toContain('E_SKILL_WORKSPACE_FAILED')
      expect(seen[1]).toContain('E_SKILL_SOURCE_FAILED')
      expect(seen[3]).toContain('/skill/scripts/fail.py')
    } finally {
      skills.dispose()
      await manager.dispose()
    }
  })

  // Root hosts run the sandbox as another uid, which cannot traverse a 0700 folder.
  it.skipIf(process.getuid?.() !== 0)(
    'gives the person the host path the model never sees',
    async () => {
      const hidden = join(deployer, 'closed')
      mkdirSync(join(hidden, 'ws'), { recursive: true })
      chmodSync(hidden, 0o700)
      const manager = await createSkillManager({
        sources: [new FileSystemSkillSource({ roots: [roots] })],
        gate: async () => undefined,
        scripts: withWorkspaceDir({ ...sandbox.config }, join(hidden, 'ws')),
      })
      try {
        const err = await manager.workspace!.put('a.txt', 'x').then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(SkillHostError.is(err, 'E_SKILL_WORKSPACE_FAILED')).toBe(true)
        expect(leaks(renderError(err))).toEqual([])
        expect(leaks(JSON.stringify(err))).toEqual([])
        expect(personText(err)).toContain(hidden)
      } finally {
        await manager.dispose()
      }
    },
  )

  // docs/security.md, "What a script sees": a stated non-claim. The kernel's
  // mountinfo names a bind mount's source as its path inside the filesystem
  // holding it, whatever path or descriptor bwrap bound it from, so a script
  // (and through its output, the model) sees the workspace's host folder.
  // Nothing else of the deployer's: the skill is a copy under the sandbox's
  // own base. If this changes, update the docs.
  it('reveals in /proc/self/mountinfo the workspace folder within its filesystem, and only it', async () => {
    const mcp = await connect()
    try {
      await mcp.call('load_skill', { skill: 'leaky' })
      const out = await mcp.call('run_leaky_script', { script: 'scripts/mounts.sh' })
      expect(out).not.toContain('isError')
    } finally {
      await mcp.close()
    }
    const view = readFileSync(join(wsDir, 'mountinfo.txt'), 'utf8')
    // mountinfo: id parent dev root mountpoint ...; space, tab, newline, backslash as octal.
    const field = (line: string, i: number) =>
      (line.split(' ')[i] ?? '').replace(/\\([0-7]{3})/g, (_, o: string) =>
        String.fromCharCode(Number.parseInt(o, 8)),
      )
    const work = view.split('\n').find((l) => field(l, 4) === '/work')
    const host = realpathSync(wsDir)
    const holder = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .filter(
        (l) => l && (host === field(l, 4) || host.startsWith(`${field(l, 4).replace(/\/$/, '')}/`)),
      )
      .sort((a, b) => field(b, 4).length - field(a, 4).length)[0]!
    const within = `${field(holder, 3).replace(/\/$/, '')}${host.slice(field(holder, 4).replace(/\/$/, '').length)}`
    expect(field(work!, 3)).toBe(within)
    const others = view.split('\n').filter((l) => l !== work)
    for (const line of others) expect(leaks(field(line, 3)), line).toEqual([])
  })
})
