import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolGate } from '../../src/common/gate.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'

// The door's rule for granted write folders: a repository inside one keeps
// its version-control state read-only, as in a workspace (issue 35, hole 2's
// rule applied to the way out a grant opens). Real bubblewrap, real git.

const onLinux = process.platform === 'linux'
let base = ''
let granted = ''
let sandbox: ScriptSandbox

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'skillhost-grant-vcs-'))
  chmodSync(base, 0o755)
  granted = join(base, 'drop')
  mkdirSync(join(granted, 'app'), { recursive: true })
  execFileSync('git', ['init', '-q'], { cwd: join(granted, 'app') })
  // Everyone may write, so a refusal is the read-only bind, not the file mode.
  execFileSync('chmod', ['-R', 'a+rwX', granted])
  if (onLinux) sandbox = await createScriptSandbox()
})
afterAll(async () => {
  await sandbox?.dispose()
  rmSync(base, { recursive: true, force: true })
})

describe.skipIf(!onLinux)('a granted write folder', () => {
  it('is writable, but the repository state inside it is not', async () => {
    const root = join(base, 'src')
    const skill = join(root, 'granter')
    mkdirSync(join(skill, 'scripts'), { recursive: true })
    mkdirSync(join(skill, 'agents'))
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: granter\ndescription: G.\n---\n# G\n')
    writeFileSync(
      join(skill, 'skillhost.yaml'),
      'scripts:\n  - name: go\n    path: scripts/go.sh\n    description: Writes.\n    interpreter: sh\n',
    )
    const d = join(granted, 'app')
    writeFileSync(
      join(skill, 'scripts/go.sh'),
      [
        `echo x > ${d}/file.txt && echo FILE-OK`,
        `printf '[core]\\n\\tfsmonitor = "touch /tmp/x"\\n' >> ${d}/.git/config 2>/dev/null && echo CONFIG-WRITTEN`,
        `echo hook > ${d}/.git/hooks/pre-commit 2>/dev/null && echo HOOK-WRITTEN`,
        `mv ${d}/.git ${d}/.git-old 2>/dev/null && echo MOVED`,
        '',
      ].join('\n'),
    )
    writeFileSync(
      join(skill, 'agents/openai.yaml'),
      `permissions:\n  file_system:\n    write:\n      - ${granted}\n`,
    )
    const before = readFileSync(join(d, '.git/config'), 'utf8')
    const allow = (async () => undefined) as ToolGate
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: allow,
      scripts: {
        ...sandbox.config,
        failOnNonzeroExit: false,
        policy: {
          ...sandbox.config.policy,
          filesystem: {
            ...sandbox.config.policy.filesystem,
            allowWrite: [...sandbox.config.policy.filesystem.allowWrite, granted],
          },
        },
      },
    })
    const ctx = manager.createTurnContext()
    const loaded = await manager.load('granter', ctx)
    expect(loaded.permissions).toEqual([
      { kind: 'write', path: granted, granted: true, reason: 'granted' },
    ])
    const ack = String(await ctx.tools.get('run_granter_go')!.execute({}, ctx))
    const id = /output: (r_[0-9a-f]{16})/.exec(ack)?.[1]
    const out = id ? new TextDecoder().decode(await ctx.spool.get(id)) : ack
    expect(out).toContain('FILE-OK')
    expect(out).not.toMatch(/CONFIG-WRITTEN|HOOK-WRITTEN|MOVED/)
    expect(readFileSync(join(d, '.git/config'), 'utf8')).toBe(before)
  })
})
