import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TurnContext } from '../../../src/common/index.js'
import { forgeSkillTools } from '../../../src/lifecycle-tools.js'
import { createSkillManager } from '../../../src/manager/index.js'
import type { SkillManager } from '../../../src/manager/types.js'
import { FileSystemSkillSource } from '../../../src/sources/index.js'
import { makeRig, onLinux, type Rig } from '../../helpers/sandbox.js'

// Issue 36 item 1 loose end: every change to a session's workspace is
// announced from one home (`ManagerWorkspace.onChange`, fed by
// `SessionWorkspace.changes`), whoever makes it: the host's own `put` and
// `remove`, the model's workspace tools, a script call (also one that fails
// after writing). A script call that changed nothing is silent.

function skills(base: string): string {
  const dir = join(base, 'skills', 'writer')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  writeFileSync(join(dir, 'SKILL.md'), '---\nname: writer\ndescription: Writes.\n---\n# writer\n')
  writeFileSync(
    join(dir, 'skillhost.yaml'),
    [
      'scripts:',
      '  - name: fail_after_write',
      '    path: scripts/fail.sh',
      '    description: Writes out.bin, then fails.',
      '    interpreter: sh',
      '  - name: idle',
      '    path: scripts/idle.sh',
      '    description: Changes nothing.',
      '    interpreter: sh',
      '',
    ].join('\n'),
  )
  writeFileSync(join(dir, 'scripts', 'fail.sh'), "printf '\\377\\000' > out.bin\nexit 3\n")
  writeFileSync(join(dir, 'scripts', 'idle.sh'), 'echo nothing\n')
  return join(base, 'skills')
}

describe.skipIf(!onLinux)('workspace changes: one home, every entry point announces', () => {
  let rig: Rig
  let manager: SkillManager
  let ctx: TurnContext
  let changes = 0
  beforeAll(async () => {
    rig = await makeRig()
    manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [skills(rig.base)] })],
      gate: async () => undefined,
      scripts: rig.config,
    })
    // Subscribed before the workspace exists: the slot forwards once it is made.
    manager.workspace?.onChange(() => {
      changes++
    })
    ctx = manager.createTurnContext()
    for (const tool of forgeSkillTools(manager) || []) ctx.tools.register(tool)
    await manager.load('writer', ctx)
  })
  afterAll(async () => {
    await manager?.dispose()
    await rig?.cleanup()
  })

  const run = (name: string, args: Record<string, unknown> = {}) => {
    const tool = ctx.tools.get(name)
    if (!tool) throw new Error(`no tool ${name}`)
    return tool.execute(args, ctx)
  }

  it("the host's put and remove each announce once, by the time they resolve", async () => {
    const before = changes
    await manager.workspace?.put('host/in.bin', new Uint8Array([0xef, 0xbb, 0xbf, 0]))
    expect(changes).toBe(before + 1)
    await manager.workspace?.remove('host/in.bin')
    expect(changes).toBe(before + 2)
    // Removing what is not there (no parent folder) changes nothing and says nothing.
    await manager.workspace?.remove('nowhere/x.bin')
    expect(changes).toBe(before + 2)
  })

  it("the model's workspace_write announces; workspace_read does not", async () => {
    const before = changes
    await run('workspace_write', { path: 'model.txt', content: 'hi' })
    expect(changes).toBe(before + 1)
    await run('workspace_read', { path: 'model.txt' })
    expect(changes).toBe(before + 1)
  })

  it('a script that writes and then fails announces; one that changes nothing is silent', async () => {
    const before = changes
    await expect(run('run_writer_fail_after_write')).rejects.toThrow(/exit|status|3/i)
    expect(changes).toBe(before + 1)
    expect(Buffer.from((await manager.workspace?.get('out.bin')) ?? []).toString('hex')).toBe(
      'ff00',
    )
    await run('run_writer_idle')
    expect(changes).toBe(before + 1)
  })

  it('a listener that throws stops neither the write nor the others; unsubscribing stops it', async () => {
    let other = 0
    const stopThrowing = manager.workspace?.onChange(() => {
      throw new Error('listener bug')
    })
    const stopOther = manager.workspace?.onChange(() => {
      other++
    })
    await manager.workspace?.put('a.txt', 'a')
    expect(other).toBe(1)
    stopThrowing?.()
    stopOther?.()
    await manager.workspace?.put('a.txt', 'b')
    expect(other).toBe(1)
    expect(new TextDecoder().decode(await manager.workspace?.get('a.txt'))).toBe('b')
  })
})
