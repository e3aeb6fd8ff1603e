import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deny, type GateRequest, type ToolGate } from '../../../src/common/gate.js'
import type { TurnContext } from '../../../src/common/turn-context.js'
import { forgeSkillTools } from '../../../src/lifecycle-tools.js'
import { createSkillManager } from '../../../src/manager/create-skill-manager.js'
import { FileSystemSkillSource } from '../../../src/sources/file-system-skill-source.js'
import { memorySource } from '../../helpers/manager-fixtures.js'
import { makeRig, onLinux, type Rig } from '../../helpers/sandbox.js'

// A skill whose agents/openai.yaml asks for one read path the session policy
// allows, one it does not, a path inside itself, one writable folder and the
// network; its scripts print a file or write one, so what the sandbox really
// binds is seen from inside.
const SIDECAR = `scripts:
  - name: peek
    path: scripts/peek.sh
    description: Prints a file.
    interpreter: sh
    params: [{ name: file, type: string, required: true, positional: true }]
  - name: put
    path: scripts/put.sh
    description: Writes a file.
    interpreter: sh
    params: [{ name: file, type: string, required: true, positional: true }]
`
const PEEK = 'cat "$1" 2>/dev/null || echo "cannot read it"\n'
const PUT = 'echo written > "$1" 2>/dev/null && echo ok || echo "cannot write it"\n'

function openAiYaml(base: string): string {
  return `interface:
  display_name: "Permission probe"
permissions:
  network: true
  file_system:
    read:
      - ${base}/shared/granted
      - ${base}/outside
      - data/local.txt
    write:
      - ${base}/drop
`
}

interface Fixture {
  root: string
  skill: string
}

function writeSkill(base: string, name: string, openai: string | undefined): Fixture {
  const root = join(base, `src-${name}`)
  const skill = join(root, name)
  mkdirSync(join(skill, 'scripts'), { recursive: true })
  mkdirSync(join(skill, 'data'), { recursive: true })
  writeFileSync(join(skill, 'SKILL.md'), `---\nname: ${name}\ndescription: Probes.\n---\n# P\n`)
  writeFileSync(join(skill, 'skillhost.yaml'), SIDECAR)
  writeFileSync(join(skill, 'scripts/peek.sh'), PEEK)
  writeFileSync(join(skill, 'scripts/put.sh'), PUT)
  writeFileSync(join(skill, 'data/local.txt'), 'local-bytes\n')
  if (openai !== undefined) {
    mkdirSync(join(skill, 'agents'))
    writeFileSync(join(skill, 'agents/openai.yaml'), openai)
  }
  return { root, skill }
}

/** A gate that allows everything and keeps every permission profile it was shown. */
function profileGate(refuse = false): ToolGate & { seen: GateRequest[] } {
  const seen: GateRequest[] = []
  const gate = (async (_ctx: TurnContext, request: GateRequest) => {
    if (request.permissions !== undefined) {
      seen.push(request)
      if (refuse) throw deny('no extra paths for skills here')
    }
  }) as ToolGate & { seen: GateRequest[] }
  gate.seen = seen
  return gate
}

async function output(ctx: TurnContext, tool: string, file: string): Promise<string> {
  const ack = String(await ctx.tools.get(tool)!.execute({ file }, ctx))
  const id = /output: (r_[0-9a-f]{16})/.exec(ack)![1]!
  return new TextDecoder().decode(await ctx.spool.get(id))
}

describe.skipIf(!onLinux)(
  'permission requests are requests, never grants (real bubblewrap)',
  () => {
    let rig: Rig
    let base: string
    beforeAll(async () => {
      rig = await makeRig()
      // The deployer's folders, outside skillhost's own (the rig's base, which no request may name).
      base = mkdtempSync(join(tmpdir(), 'skillhost-perm-'))
      chmodSync(base, 0o755)
      // The sandbox runs as an unprivileged host user when the tests run as root.
      for (const dir of ['shared', 'shared/granted', 'outside', 'drop']) {
        mkdirSync(join(base, dir), { recursive: true })
        chmodSync(join(base, dir), 0o755)
      }
      chmodSync(join(base, 'drop'), 0o777)
      writeFileSync(join(base, 'shared/granted/data.txt'), 'granted-bytes\n')
      writeFileSync(join(base, 'outside/secret.txt'), 'secret-bytes\n')
    })
    afterAll(async () => {
      await rig.cleanup()
      rmSync(base, { recursive: true, force: true })
    })

    /** The rig's session policy, widened by the deployer to read `shared` and write `drop`. */
    const scripts = () => ({
      ...rig.config,
      policy: {
        ...rig.config.policy,
        filesystem: {
          ...rig.config.policy.filesystem,
          allowRead: [...rig.config.policy.filesystem.allowRead, join(base, 'shared')],
          allowWrite: [...rig.config.policy.filesystem.allowWrite, join(base, 'drop')],
        },
      },
    })

    /** A manager over the skills in `root` under the widened session policy (`scripts()`), `extra` on top. */
    const managerOver = (
      root: string,
      gate: ToolGate = profileGate(),
      extra: Partial<Parameters<typeof createSkillManager>[0]> = {},
    ) =>
      createSkillManager({
        sources: [new FileSystemSkillSource({ roots: root })],
        gate,
        scripts: scripts(),
        ...extra,
      })

    it('grants a request within the session policy, refuses one beyond it, and the gate sees the profile once per version', async () => {
      const { root, skill } = writeSkill(base, 'probe', openAiYaml(base))
      const gate = profileGate()
      await using manager = await managerOver(root, gate)
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('probe', ctx)
      expect(loaded.permissions).toEqual([
        { kind: 'read', path: join(base, 'shared/granted'), granted: true, reason: 'granted' },
        {
          kind: 'read',
          path: join(base, 'outside'),
          granted: false,
          reason: 'beyond-session-policy',
          code: 'E_SKILL_SCRIPT_POLICY_WIDENED',
        },
        { kind: 'read', path: 'data/local.txt', granted: true, reason: 'inside-skill' },
        { kind: 'write', path: join(base, 'drop'), granted: true, reason: 'granted' },
        { kind: 'network', granted: false, reason: 'network-unsupported' },
      ])
      // The host sees the same outcomes for what is loaded.
      expect(manager.loadedSkills()[0]?.permissions).toEqual(loaded.permissions)
      // Granted: readable from inside the sandbox, and the writable one written.
      expect(await output(ctx, 'run_probe_peek', join(base, 'shared/granted/data.txt'))).toContain(
        'granted-bytes',
      )
      expect(await output(ctx, 'run_probe_put', join(base, 'drop/new.txt'))).toContain('ok')
      expect(readFileSync(join(base, 'drop/new.txt'), 'utf8')).toBe('written\n')
      // Beyond the session policy: refused, so not there at all.
      const refused = await output(ctx, 'run_probe_peek', join(base, 'outside/secret.txt'))
      expect(refused).toContain('cannot read it')
      expect(refused).not.toContain('secret-bytes')
      // Nor is the rest of what the session policy allows: a write there lands in the call's scratch.
      await output(ctx, 'run_probe_put', join(base, 'shared/x.txt'))
      expect(existsSync(join(base, 'shared/x.txt'))).toBe(false)

      // The gate saw exactly the grantable profile, once, and a reload of the same version asks nothing.
      expect(gate.seen).toEqual([
        {
          tool: 'skill_permissions',
          args: { skill: 'probe' },
          tier: 'script',
          skill: { id: 'probe', version: loaded.version },
          permissions: { read: [join(base, 'shared/granted')], write: [join(base, 'drop')] },
        },
      ])
      await manager.unload('probe', ctx)
      await manager.load('probe', ctx)
      expect(gate.seen).toHaveLength(1)

      // A new version is a new request: asked again.
      writeFileSync(join(skill, 'scripts/peek.sh'), `# v2\n${PEEK}`)
      await manager.unload('probe', ctx)
      await manager.refresh()
      const again = await manager.load('probe', ctx)
      expect(again.version).not.toBe(loaded.version)
      expect(gate.seen.map((r) => r.skill?.version)).toEqual([loaded.version, again.version])
    })

    it('a dynamic-context command of the skill runs with the same grant as its scripts', async () => {
      const { root, skill } = writeSkill(base, 'probe-dyn', openAiYaml(base))
      writeFileSync(
        join(skill, 'SKILL.md'),
        `---\nname: probe-dyn\ndescription: Probes.\n---\n# P\nGranted: !\`cat ${base}/shared/granted/data.txt\`\nOutside: !\`cat ${base}/outside/secret.txt || echo none\`\n`,
      )
      await using manager = await managerOver(root, profileGate(), {
        scripts: { ...scripts(), dynamicContext: 'run' as const },
        // The body comes back in the load result itself.
        defaultChannel: 'inline',
      })
      const { body } = await manager.load('probe-dyn', manager.createTurnContext())
      expect(body).toContain('Granted: granted-bytes')
      expect(body).toContain('Outside: none')
      expect(body).not.toContain('secret-bytes')
    })

    it('the model reads the outcomes in load_skill, with skillhost’s reasons and no session-policy path', async () => {
      const { root } = writeSkill(base, 'probe-model', openAiYaml(base))
      await using manager = await managerOver(root)
      const ctx = manager.createTurnContext()
      const tools = forgeSkillTools(manager)
      const load = tools.find((t) => t.name === 'load_skill')!
      const text = String(await load.execute({ skill: 'probe-model' }, ctx))
      const result = JSON.parse(text) as { permissions: { reason: string; code?: string }[] }
      expect(result.permissions.map((p) => p.reason)).toContain('beyond-session-policy')
      expect(result.permissions.find((p) => p.code)?.code).toBe('E_SKILL_SCRIPT_POLICY_WIDENED')
      expect(text).not.toContain(rig.workspace.skillsDir)
    })

    it('a gate refusal grants nothing: the skill loads and runs as if it requested nothing', async () => {
      const { root } = writeSkill(base, 'probe-refused', openAiYaml(base))
      const gate = profileGate(true)
      await using manager = await managerOver(root, gate)
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('probe-refused', ctx)
      expect(gate.seen).toHaveLength(1)
      expect(loaded.permissions?.filter((p) => p.reason === 'gate-refused')).toEqual([
        {
          kind: 'read',
          path: join(base, 'shared/granted'),
          granted: false,
          reason: 'gate-refused',
        },
        { kind: 'write', path: join(base, 'drop'), granted: false, reason: 'gate-refused' },
      ])
      const out = await output(ctx, 'run_probe_refused_peek', join(base, 'shared/granted/data.txt'))
      expect(out).toContain('cannot read it')
      expect(out).not.toContain('granted-bytes')
    })

    it('a granted path swapped for a symlink is never followed out of the session policy', async () => {
      mkdirSync(join(base, 'shared/swap'), { recursive: true })
      chmodSync(join(base, 'shared/swap'), 0o755)
      const yaml = `permissions:\n  file_system:\n    read: [${base}/shared/swap]\n`
      const { root } = writeSkill(base, 'probe-swap', yaml)
      await using manager = await managerOver(root)
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('probe-swap', ctx)
      expect(loaded.permissions).toEqual([
        { kind: 'read', path: join(base, 'shared/swap'), granted: true, reason: 'granted' },
      ])
      // After the grant, the folder becomes a link to what the session policy keeps out.
      renameSync(join(base, 'shared/swap'), join(base, 'shared/swap-old'))
      symlinkSync(join(base, 'outside'), join(base, 'shared/swap'))
      const out = await output(ctx, 'run_probe_swap_peek', join(base, 'shared/swap/secret.txt'))
      expect(out).toContain('cannot read it')
      expect(out).not.toContain('secret-bytes')
    })

    it("a request overlapping skillhost's own folders is refused, though the session policy holds them", async () => {
      const { skillsDir, scratchDir } = rig.workspace
      const yaml = `permissions:\n  file_system:\n    read: [${skillsDir}]\n    write: [${scratchDir}, ${rig.base}]\n`
      const { root } = writeSkill(base, 'probe-internal', yaml)
      const gate = profileGate()
      await using manager = await managerOver(root, gate)
      const loaded = await manager.load('probe-internal', manager.createTurnContext())
      const code = 'E_SKILL_SCRIPT_POLICY_WIDENED'
      expect(loaded.permissions).toEqual([
        { kind: 'read', path: skillsDir, granted: false, reason: 'skillhost-folder', code },
        { kind: 'write', path: scratchDir, granted: false, reason: 'skillhost-folder', code },
        { kind: 'write', path: rig.base, granted: false, reason: 'skillhost-folder', code },
      ])
      expect(gate.seen).toEqual([])
    })

    it("a session deny inside a granted folder stays masked over the folder's bind", async () => {
      mkdirSync(join(base, 'shared/granted/private'), { recursive: true })
      chmodSync(join(base, 'shared/granted/private'), 0o755)
      writeFileSync(join(base, 'shared/granted/private/key.txt'), 'private-bytes\n')
      const yaml = `permissions:\n  file_system:\n    read: [${base}/shared/granted]\n`
      const { root } = writeSkill(base, 'probe-deny', yaml)
      const session = scripts()
      await using manager = await managerOver(root, profileGate(), {
        scripts: {
          ...session,
          policy: {
            ...session.policy,
            filesystem: {
              ...session.policy.filesystem,
              denyRead: [join(base, 'shared/granted/private')],
            },
          },
        },
      })
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('probe-deny', ctx)
      expect(loaded.permissions?.[0]).toMatchObject({ granted: true, reason: 'granted' })
      expect(
        await output(ctx, 'run_probe_deny_peek', join(base, 'shared/granted/data.txt')),
      ).toContain('granted-bytes')
      const denied = await output(
        ctx,
        'run_probe_deny_peek',
        join(base, 'shared/granted/private/key.txt'),
      )
      expect(denied).toContain('cannot read it')
      expect(denied).not.toContain('private-bytes')
    })

    it('a request a source built in code is checked by the same rule: bad entries are not requested', async () => {
      const gate = profileGate()
      await using manager = await createSkillManager({
        sources: [
          memorySource([
            {
              name: 'coded',
              description: 'Built in code.',
              body: '# Coded',
              scripts: [
                {
                  name: 'peek',
                  path: 'scripts/peek.sh',
                  description: 'Prints a file.',
                  interpreter: 'sh',
                  params: [{ name: 'file', type: 'string', required: true, positional: true }],
                },
              ],
              files: { 'scripts/peek.sh': PEEK },
              permissions: {
                network: false,
                read: [join(base, 'shared/granted'), `${base}/shared/../outside`, 42 as never],
                write: 'not a list' as never,
              },
            },
          ]),
        ],
        gate,
        scripts: scripts(),
      })
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('coded', ctx)
      expect(loaded.permissions).toEqual([
        { kind: 'read', path: join(base, 'shared/granted'), granted: true, reason: 'granted' },
      ])
      expect(gate.seen[0]?.permissions).toEqual({ read: [join(base, 'shared/granted')], write: [] })
      expect(await output(ctx, 'run_coded_peek', join(base, 'shared/granted/data.txt'))).toContain(
        'granted-bytes',
      )
    })

    it('a skill that requests nothing runs as today and its load result names no permissions', async () => {
      const { root } = writeSkill(base, 'probe-none', undefined)
      const gate = profileGate()
      await using manager = await managerOver(root, gate)
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('probe-none', ctx)
      expect(loaded).not.toHaveProperty('permissions')
      expect(gate.seen).toEqual([])
      expect(
        await output(ctx, 'run_probe_none_peek', join(base, 'shared/granted/data.txt')),
      ).toContain('cannot read it')
    })

    it('a hostile agents/openai.yaml is a warning each; the valid entries and the rest of the skill stand', async () => {
      const huge = Array.from({ length: 1000 }, (_, i) => `      - ${base}/shared/f${i}`).join('\n')
      const hostile = `permissions:
  macos: { automations: true }
  network: maybe
  file_system:
    read:
      - ${base}/shared/granted
      - 42
      - { nested: [1, 2, 3] }
      - ${base}/shared/../outside
      - ~/secrets
      - "${'x'.repeat(5000)}"
    write:
${huge}
`
      const { root } = writeSkill(base, 'probe-hostile', hostile)
      await using manager = await managerOver(root)
      const entry = manager.catalog().entries.find((e) => e.id === 'probe-hostile')!
      const warnings = entry.warnings ?? []
      expect(warnings.join('\n')).toMatch(/permissions\."macos" is not honoured/)
      expect(warnings.join('\n')).toMatch(/network must be true, false or a mapping/)
      expect(warnings.join('\n')).toMatch(/read\[1\] is not a string \(number\)/)
      expect(warnings.join('\n')).toMatch(/read\[2\] is not a string \(object\)/)
      expect(warnings.join('\n')).toMatch(/read\[3\] .* traverses to a parent directory/)
      expect(warnings.join('\n')).toMatch(/read\[4\] .* home directory/)
      expect(warnings.join('\n')).toMatch(/read\[5\] .* longer than 1024/)
      expect(warnings.join('\n')).toMatch(/write lists 1000 paths; only the first 32/)
      expect(warnings.every((w) => w.length < 400)).toBe(true)
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('probe-hostile', ctx)
      expect(loaded.tools).toEqual(['run_probe_hostile_peek', 'run_probe_hostile_put'])
      expect(loaded.permissions?.filter((p) => p.kind === 'read')).toEqual([
        { kind: 'read', path: join(base, 'shared/granted'), granted: true, reason: 'granted' },
      ])
      expect(loaded.permissions?.filter((p) => p.kind === 'write')).toHaveLength(32)
      expect(
        await output(ctx, 'run_probe_hostile_peek', join(base, 'shared/granted/data.txt')),
      ).toContain('granted-bytes')
    })

    // An agents/openai.yaml that is never parsed: a warning in the catalog, and the skill loads with its tools, requesting nothing.
    it.each([
      {
        title:
          'deep nesting in agents/openai.yaml is refused by the YAML depth guard, as a warning',
        name: 'probe-deep',
        yaml: () => `permissions: ${'['.repeat(500)}${']'.repeat(500)}\n`,
        warned: (warnings: readonly string[] | undefined) =>
          expect(warnings?.join('\n')).toMatch(
            /agents\/openai\.yaml: not accepted .*permissions were ignored/,
          ),
      },
      {
        title:
          'an agents/openai.yaml past the frontmatter cap is not parsed: a warning, and the skill loads',
        name: 'probe-big',
        yaml: () =>
          `permissions:\n  file_system:\n    read: [${base}/shared/granted]\n#${'x'.repeat(100_000)}\n`,
        warned: (warnings: readonly string[] | undefined) =>
          expect(warnings).toContain(
            'agents/openai.yaml could not be read (E_SKILL_SOURCE_TOO_LARGE); its permissions were ignored',
          ),
      },
    ])('$title', async ({ name, yaml, warned }) => {
      const { root } = writeSkill(base, name, yaml())
      await using manager = await managerOver(root)
      warned(manager.catalog().entries.find((e) => e.id === name)!.warnings)
      const loaded = await manager.load(name, manager.createTurnContext())
      expect(loaded.tools).toHaveLength(2)
      expect(loaded).not.toHaveProperty('permissions')
    })

    it("skillhost.yaml's permissions replace agents/openai.yaml's; a bad one there is the sidecar's error", async () => {
      const { root, skill } = writeSkill(base, 'probe-sidecar', openAiYaml(base))
      writeFileSync(
        join(skill, 'skillhost.yaml'),
        `${SIDECAR}permissions:\n  file_system:\n    write: [${base}/drop]\n`,
      )
      await using manager = await managerOver(root)
      const loaded = await manager.load('probe-sidecar', manager.createTurnContext())
      expect(loaded.permissions).toEqual([
        { kind: 'write', path: join(base, 'drop'), granted: true, reason: 'granted' },
      ])
      writeFileSync(
        join(skill, 'skillhost.yaml'),
        `${SIDECAR}permissions:\n  file_system:\n    write: [../up]\n`,
      )
      await manager.refresh()
      const problem = manager.catalog().skipped.find((p) => p.location === 'probe-sidecar')
      expect(problem?.code).toBe('E_SKILL_MANIFEST_INVALID')
      expect(problem?.message).toMatch(
        /skillhost\.yaml is invalid: permissions\.file_system\.write\[0\] "\.\.\/up" is neither absolute nor a plain path inside the skill/,
      )
    })
  },
)
