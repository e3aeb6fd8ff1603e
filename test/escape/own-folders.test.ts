import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GateRequest, ToolGate } from '../../src/common/gate.js'
import type { TurnContext } from '../../src/common/turn-context.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'

// Issue 35, hole 4: skillhost's own folders (the environment cache, the
// deployer's state folder, skill copies, workspaces) are one list that no
// permission grant reaches, whatever the session policy offers. Real
// sandbox configuration, real manager, a gate that allows everything.

const onLinux = process.platform === 'linux'
let base = ''
let offered = ''
let sandbox: ScriptSandbox

/** A gate that allows every profile and remembers what it was asked. */
function allowAll(): ToolGate & { seen: GateRequest[] } {
  const seen: GateRequest[] = []
  const gate = (async (_ctx: TurnContext, request: GateRequest) => {
    if (request.permissions !== undefined) seen.push(request)
  }) as ToolGate & { seen: GateRequest[] }
  gate.seen = seen
  return gate
}

/** A skill asking to write `paths`, its declared script a no-op. */
function skillAsking(name: string, paths: readonly string[]): string {
  const root = join(base, `src-${name}`)
  const skill = join(root, name)
  mkdirSync(join(skill, 'scripts'), { recursive: true })
  mkdirSync(join(skill, 'agents'))
  writeFileSync(join(skill, 'SKILL.md'), `---\nname: ${name}\ndescription: Asks.\n---\n# A\n`)
  writeFileSync(
    join(skill, 'skillhost.yaml'),
    'scripts:\n  - name: noop\n    path: scripts/noop.sh\n    description: Nothing.\n    interpreter: sh\n',
  )
  writeFileSync(join(skill, 'scripts/noop.sh'), 'true\n')
  const list = paths.map((p) => `      - ${p}`).join('\n')
  writeFileSync(
    join(skill, 'agents/openai.yaml'),
    `permissions:\n  file_system:\n    write:\n${list}\n`,
  )
  return root
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'skillhost-own-'))
  chmodSync(base, 0o755)
  // The deployer offers one folder for writes, and keeps the env cache and serve's state in it.
  offered = join(base, 'offered')
  mkdirSync(join(offered, 'state'), { recursive: true })
  mkdirSync(join(offered, 'free'), { recursive: true })
  chmodSync(offered, 0o755)
  if (onLinux)
    sandbox = await createScriptSandbox({ provision: { cacheDir: join(offered, 'envs') } })
})
afterAll(async () => {
  await sandbox?.dispose()
  rmSync(base, { recursive: true, force: true })
})

describe.skipIf(!onLinux)("no grant reaches skillhost's own folders", () => {
  it('refuses the environment cache, the state folder and what holds them, and grants the rest (hole 4)', async () => {
    const config = {
      ...sandbox.config,
      ownFolders: [join(offered, 'state')],
      policy: {
        ...sandbox.config.policy,
        filesystem: {
          ...sandbox.config.policy.filesystem,
          allowWrite: [...sandbox.config.policy.filesystem.allowWrite, offered],
        },
      },
    }
    const envs = join(offered, 'envs')
    const asked = [
      envs,
      `${envs}/`,
      join(envs, 'some-env/lib'),
      `${offered}//envs`,
      offered,
      join(offered, 'state/spool'),
      sandbox.baseDir,
      join(offered, 'free'),
    ]
    const gate = allowAll()
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: skillAsking('asker', asked) })],
      gate,
      scripts: config,
    })
    const loaded = await manager.load('asker', manager.createTurnContext())
    // Paths as the request rule normalizes them (`//` and a trailing `/` folded).
    const norm = (p: string) => p.replace(/\/+/g, '/').replace(/\/$/, '')
    const byPath = new Map(
      loaded.permissions?.map((p) => [norm('path' in p ? String(p.path) : ''), p]),
    )
    for (const path of asked.slice(0, -1)) {
      const outcome = byPath.get(norm(path))
      expect(outcome, path).toMatchObject({ granted: false, reason: 'skillhost-folder' })
    }
    expect(byPath.get(norm(join(offered, 'free')))).toMatchObject({
      granted: true,
      reason: 'granted',
    })
    // The gate is shown only what may be granted.
    expect(gate.seen.map((r) => r.permissions?.write)).toEqual([[join(offered, 'free')]])
  })
})
