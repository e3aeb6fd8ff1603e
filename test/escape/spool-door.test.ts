import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSkillManager, FileSystemSkillSource, forgeSkillTools } from '../../src/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'

// The spooling of a script's changed files leaves the sandbox through the one
// door (common/door/read-out.ts): names by the door's name rule, regular
// files only, a hard-linked file once, read by descriptor. Each way around
// the rule is a script of its own, run for real under bubblewrap.

const base = mkdtempSync(join(tmpdir(), 'skillhost-spool-door-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const SCRIPTS: Record<string, string> = {
  // A name that would forge lines of the model's report and of spool titles.
  'control.sh': 'printf x > "$(printf \'a\\033[2Jb\')"\nprintf y > "$(printf \'c\\nd\')"\n',
  // One file, two names: the second must not be a second copy.
  'links.sh': 'echo data > first.txt\nln first.txt second.txt\n',
  // Version-control state in any spelling the door knows.
  'vcs.sh':
    'mkdir -p sub/.git sub/.GIT sub/git~1 "sub/.git." && for d in sub/.git sub/.GIT sub/git~1 "sub/.git."; do echo hook > "$d/config"; done\n',
  // A folder with a control character: every file below it carries the name.
  'folder.sh': 'd="$(printf \'x\\ty\')"; mkdir "$d" && echo z > "$d/in.txt"\n',
  'ok.sh': 'echo fine > ok.txt\n',
}

function skill(): void {
  const dir = join(base, 'skills', 'outs')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  writeFileSync(join(dir, 'SKILL.md'), '---\nname: outs\ndescription: Makes outputs.\n---\nbody\n')
  for (const [name, text] of Object.entries(SCRIPTS))
    writeFileSync(join(dir, 'scripts', name), `#!/bin/sh\n${text}`)
}
skill()

describe.skipIf(process.platform !== 'linux')('spooled outputs pass the door', () => {
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
  })
  afterAll(async () => sandbox?.dispose())

  async function run(script: string): Promise<{ out: string; ids: string[] }> {
    await using m = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [join(base, 'skills')] })],
      gate: async () => undefined,
      scripts: { ...sandbox.config, undeclared: 'allow' },
    })
    const ctx = m.createTurnContext()
    for (const t of forgeSkillTools(m)) ctx.tools.register(t)
    await m.load('outs', ctx)
    const tool = ctx.tools.get('run_outs_script')!
    const out = String(await tool.execute({ script: `scripts/${script}` }, ctx))
    const ids = [...out.matchAll(/copy: (r_[0-9a-f]{16})/g)].map((x) => x[1] as string)
    for (const id of ids) expect(await ctx.spool.stat(id)).toBeDefined()
    return { out, ids }
  }

  it('spools a plain output (the door lets the legitimate through)', async () => {
    const { out, ids } = await run('ok.sh')
    expect(out).toMatch(/created ok\.txt \(5 bytes\), copy: r_/)
    expect(ids).toHaveLength(1)
  })

  it('refuses names with control characters, quoted, and spools none of them', async () => {
    const { out, ids } = await run('control.sh')
    expect(ids).toEqual([])
    expect(out.match(/not spooled: its name holds a control character/g)).toHaveLength(2)
    expect(out).not.toContain('\u001b')
    expect(out).not.toMatch(/c\nd/)
  })

  it('refuses every file below a folder whose name holds a control character', async () => {
    const { out, ids } = await run('folder.sh')
    expect(ids).toEqual([])
    expect(out).toMatch(/in\.txt"? \(2 bytes\), not spooled: its name holds a control character/)
  })

  it('spools a hard-linked file once and names the second as a link to the first', async () => {
    const { out, ids } = await run('links.sh')
    expect(ids).toHaveLength(1)
    expect(out).toMatch(
      /second\.txt \(5 bytes\), not spooled: a hard link to first\.txt, copied once/,
    )
  })

  it('refuses version-control state in every spelling (.git, .GIT, git~1, .git.)', async () => {
    const { out, ids } = await run('vcs.sh')
    expect(ids).toEqual([])
    expect(out.match(/is version-control state, never written by contained code/g)).toHaveLength(4)
  })
})
