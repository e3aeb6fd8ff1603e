import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

// Tier 3 is optional: importing `skillhost`, or running a manager without
// `scripts`, loads no file of it; a manager with `scripts` loads it
// (src/manager/script-tier.ts). Each step runs the built package (dist/,
// built by the suite's global setup) in a child Node whose module hook
// records every file it loads, with a marker line between steps.

const root = fileURLToPath(new URL('..', import.meta.url))
const hook = pathToFileURL(join(root, 'test/helpers/loaded-files-hook.mjs')).href
const examples = join(root, 'examples/skills')
const dir = mkdtempSync(join(tmpdir(), 'skillhost-lazy-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs `body` (after `register`, with `mark(step)`) and returns the files each step loaded, by step. */
function loadedBySteps(name: string, body: string): Map<string, string[]> {
  const out = join(dir, `${name}.txt`)
  const script = `import { appendFileSync } from 'node:fs'
import { register } from 'node:module'
register(${JSON.stringify(hook)}, { data: { out: ${JSON.stringify(out)} } })
const mark = (step) => appendFileSync(${JSON.stringify(out)}, '## ' + step + '\\n')
const examples = ${JSON.stringify(examples)}
${body}
mark('end')`
  execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  })
  const steps = new Map<string, string[]>()
  let files: string[] = []
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    if (line.startsWith('## ')) {
      files = []
      steps.set(line.slice(3), files)
    } else if (line.startsWith('file:')) files.push(fileURLToPath(line))
  }
  return steps
}

const distTier3 = join(root, 'dist/tiers/scripts/')
const tier3 = (files: readonly string[] | undefined) =>
  (files ?? []).filter((f) => f.startsWith(distTier3)).map((f) => f.slice(distTier3.length))

describe('tier 3 is loaded only when scripts are configured', () => {
  it('importing skillhost loads no tier-3 file; neither does a manager without scripts loading a skill that declares one', () => {
    const steps = loadedBySteps(
      'no-scripts',
      `mark('import')
const sh = await import('skillhost')
mark('manager')
const manager = await sh.createSkillManager({
  sources: [new sh.FileSystemSkillSource({ roots: [examples] })],
  gate: async () => {},
})
const ctx = manager.createTurnContext()
for (const tool of sh.forgeSkillTools(manager)) ctx.tools.register(tool)
const loaded = JSON.parse(String(await ctx.tools.get('load_skill').execute({ skill: 'word-count' }, ctx)))
if (loaded.toolsUnavailable?.[0]?.reason !== 'scripts-off') throw new Error(JSON.stringify(loaded))
await manager.dispose()`,
    )
    const imported = steps.get('import') ?? []
    expect(imported.some((f) => f === join(root, 'dist/index.js'))).toBe(true)
    expect(imported.some((f) => f.startsWith(join(root, 'dist/manager/')))).toBe(true)
    expect(tier3(imported)).toEqual([])
    expect([...steps.keys()]).toEqual(['import', 'manager', 'end'])
    expect(tier3(steps.get('manager'))).toEqual([])
  }, 60_000)

  it('a manager with scripts loads tier 3 (its tier.ts, which skillhost/sandbox does not import)', () => {
    const steps = loadedBySteps(
      'scripts',
      `mark('import')
const sh = await import('skillhost')
mark('sandbox')
const { createScriptSandbox } = await import('skillhost/sandbox')
const sandbox = await createScriptSandbox()
mark('manager')
const manager = await sh.createSkillManager({
  sources: [new sh.FileSystemSkillSource({ roots: [examples] })],
  gate: async () => {},
  scripts: sandbox.config,
})
const ctx = manager.createTurnContext()
for (const tool of sh.forgeSkillTools(manager)) ctx.tools.register(tool)
if (!ctx.tools.has('workspace_list')) throw new Error('no workspace tools')
const loaded = JSON.parse(String(await ctx.tools.get('load_skill').execute({ skill: 'word-count' }, ctx)))
if (!loaded.toolsAdded?.includes('run_word_count_count')) throw new Error(JSON.stringify(loaded))
await manager.dispose()
await sandbox.dispose()`,
    )
    expect(tier3(steps.get('import'))).toEqual([])
    // The public entry loads the sandbox machinery, but not the manager's face of the tier.
    expect(tier3(steps.get('sandbox'))).toContain('index.js')
    expect(tier3(steps.get('sandbox'))).not.toContain('tier.js')
    expect(tier3(steps.get('manager'))).toContain('tier.js')
    expect(tier3(steps.get('manager'))).toContain('tool/script-forge.js')
  }, 60_000)
})
