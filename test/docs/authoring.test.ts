import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillManager } from '../../src/manager/types.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { createQuickJsGuest, type QuickJsGuestPool } from '../../src/tiers/isolated/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const doc = readFileSync(join(repo, 'docs/authoring.md'), 'utf8')

interface Call {
  readonly skill: string
  readonly tool: string
  readonly args: unknown
  readonly expect: string
}

// Every fenced block tagged `file=<skill>/<path>` is a file of an example
// skill; a block tagged `call=<skill> <tool>` is a call, and the `text expect`
// block after it is a fragment its result must contain.
const files = new Map<string, string>()
const calls: Call[] = []
for (const m of doc.matchAll(
  /```\w+ (file|call)=(\S+)(?: (\S+))?\n([\s\S]*?)```(?:\s*```text expect\n([\s\S]*?)```)?/g,
)) {
  const [, kind, target, tool, body, expected] = m as unknown as string[]
  if (kind === 'file') files.set(target as string, body as string)
  else {
    if (expected === undefined) throw new Error(`call=${target} ${tool} has no expect block`)
    calls.push({
      skill: target as string,
      tool: tool as string,
      args: JSON.parse(body as string),
      expect: (expected as string).trim(),
    })
  }
}
const skills = [...new Set([...files.keys()].map((p) => p.split('/')[0] as string))]

describe.skipIf(process.platform !== 'linux')('docs/authoring.md: every example runs', () => {
  // Inside the package, so a module example can import 'skillhost' by self-reference.
  mkdirSync(join(repo, '.skillhost'), { recursive: true })
  const root = mkdtempSync(join(repo, '.skillhost', 'authoring-'))
  let pool: QuickJsGuestPool
  let sandbox: ScriptSandbox
  let manager: SkillManager
  beforeAll(async () => {
    for (const [path, body] of files) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), body)
    }
    pool = createQuickJsGuest({ poolSize: 1 })
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
    manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [root], importModules: true })],
      gate: async () => undefined,
      isolation: {
        resolveGuest: pool.resolveGuest,
        // Generous: the calls must succeed however loaded the machine is.
        maxTimeoutSeconds: 20,
        defaultTimeoutSeconds: 20,
      },
      scripts: { ...sandbox.config, undeclared: 'allow' },
    })
  })
  afterAll(async () => {
    await manager?.dispose()
    await pool?.dispose()
    await sandbox?.dispose()
    rmSync(root, { recursive: true, force: true })
  })

  it('has examples for every tier, and each is called', () => {
    expect(skills.length).toBeGreaterThanOrEqual(5)
    expect(new Set(calls.map((c) => c.skill))).toEqual(new Set(skills))
  })

  it.each(skills)('%s passes skillhost validate', async (skill) => {
    const out: string[] = []
    const code = await main(['validate', join(root, skill)], {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void out.push(t),
    })
    expect({ code, out: out.join('') }).toMatchObject({ code: 0 })
  })

  it('every call returns what the page says', async () => {
    const ctx = manager.createTurnContext()
    for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
    for (const call of calls) {
      if (!manager.projected(ctx).includes(call.skill) && call.tool !== 'load_skill') {
        await manager.load(call.skill, ctx)
      }
      const tool = ctx.tools.get(call.tool)
      expect(tool, `${call.skill}: ${call.tool} is offered`).toBeDefined()
      const result = String(await tool!.execute(call.args, ctx))
      expect(result, `${call.skill}: ${call.tool}`).toContain(call.expect)
    }
  })
})
