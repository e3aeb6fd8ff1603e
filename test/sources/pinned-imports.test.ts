import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import module from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import type { TurnContext } from '../../src/common/turn-context.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { lockSkills } from '../../src/sources/lock/lock-skills.js'
import { codeOf, rejectsWith } from '../helpers/error-code.js'
import { discover, skillMd, writeTree } from '../helpers/skill-tree.js'

// Module tools must be imported by Node itself for its hooks to see them:
// vitest.config.ts hands every `skillhost-native-import-*` folder to Node.
const PREFIX = 'skillhost-native-import-'
const REPO = fileURLToPath(new URL('../../', import.meta.url))
/** Node.js 22.15+ has the hooks a locked graph is checked with; an older one refuses instead. */
const CAN_CHECK = typeof (module as { registerHooks?: unknown }).registerHooks === 'function'

const bases: string[] = []
afterAll(async () => {
  await Promise.all(bases.splice(0).map((b) => rm(b, { recursive: true, force: true })))
})

/**
 * A folder holding `skills/` and, beside it (outside every skill), a
 * `node_modules/` where `skillhost` and `yaml` are the host's own copies:
 * what a project that installed skillhost gives the skills inside it.
 */
async function base(files: Record<string, string>): Promise<{ dir: string; skills: string }> {
  const dir = await mkdtemp(join(tmpdir(), PREFIX))
  bases.push(dir)
  await mkdir(join(dir, 'node_modules'))
  await symlink(REPO, join(dir, 'node_modules/skillhost'))
  await symlink(await realpath(join(REPO, 'node_modules/yaml')), join(dir, 'node_modules/yaml'))
  const skills = join(dir, 'skills')
  await writeTree(skills, files)
  return { dir, skills }
}

/** A skill `name` whose module `tools.mjs` exports tool `say`, answering what `body` computes. */
function skill(name: string, imports: string, body: string): Record<string, string> {
  return {
    [`${name}/SKILL.md`]: skillMd(name),
    [`${name}/skillhost.yaml`]: 'module: tools.mjs\n',
    [`${name}/tools.mjs`]: `import { Tool } from 'skillhost'\n${imports}\nexport const say = new Tool({ name: 'say', description: 'Says.', inputSchema: { type: 'object' }, handler: async () => ${body} })\n`,
  }
}

/** Pins what `skills` holds now and returns a locked source importing modules, and the lock's source. */
async function locked(skills: string): Promise<FileSystemSkillSource> {
  const lock = await lockSkills(new FileSystemSkillSource({ roots: skills }))
  return new FileSystemSkillSource({ roots: skills, lock, importModules: true })
}

const ctx = {} as TurnContext

/** The answer of the skill's tool `say`, through the source's descriptor. */
async function say(source: FileSystemSkillSource, id: string): Promise<unknown> {
  const ref = (await discover(source)).skills.find((s) => s.id === id)
  const tools = (await source.descriptor(ref!)).tools ?? []
  return tools[0]!.execute({}, ctx)
}

/** What a refusal looks like: the code, and the reason where this Node.js can check at all. */
async function refusedWith(run: Promise<unknown>, reason: string): Promise<void> {
  const err = await rejectsWith(run, 'E_SKILL_NOT_PINNED')
  expect(err.data?.reason).toBe(CAN_CHECK ? reason : 'runtime-cannot-check')
  expect(err.message).not.toContain(tmpdir())
}

describe.runIf(CAN_CHECK)('a locked skill whose module graph stays pinned', () => {
  it('imports pinned files (ESM, CommonJS by import and by require, JSON), a host package (yaml) and a builtin', async () => {
    const { skills } = await base({
      ...skill(
        'plain',
        [
          "import { word } from './lib.mjs'",
          "import common from './lib/common.cjs'",
          "import data from './data.json' with { type: 'json' }",
          "import { parse } from 'yaml'",
          "import { createRequire } from 'node:module'",
          'const require = createRequire(import.meta.url)',
        ].join('\n'),
        "[word, common, data.n, require('./lib/late.cjs'), parse('n: 1').n].join(' ')",
      ),
      'plain/lib.mjs': "export const word = 'pinned'\n",
      'plain/lib/common.cjs': "module.exports = require('./shared.cjs') + '-cjs'\n",
      'plain/lib/shared.cjs': "module.exports = 'shared'\n",
      'plain/lib/late.cjs': "module.exports = 'late'\n",
      'plain/data.json': '{ "n": 7 }\n',
    })
    expect(await say(await locked(skills), 'plain')).toBe('pinned shared-cjs 7 late 1')
  })
})

describe('a locked skill whose module graph leaves what the lock pins, and one without a lock', () => {
  it('leaves an unlocked skill unaffected, after a locked import put the hooks in place', async () => {
    const { skills } = await base({
      ...skill('held', "import { word } from './lib.mjs'", 'word'),
      'held/lib.mjs': "export const word = 'pinned'\n",
    })
    const lockedSource = await locked(skills)
    if (CAN_CHECK) expect(await say(lockedSource, 'held')).toBe('pinned')
    else await refusedWith(say(lockedSource, 'held'), 'runtime-cannot-check')
    const other = await base({
      ...skill('free', "import pkg from 'pkg'", 'pkg'),
      'free/node_modules/pkg/package.json': '{ "name": "pkg", "main": "index.js" }',
      'free/node_modules/pkg/index.js': "module.exports = 'from node_modules'\n",
    })
    const source = new FileSystemSkillSource({ roots: other.skills, importModules: true })
    expect(await say(source, 'free')).toBe('from node_modules')
  })

  it('refuses a package from the skill’s own node_modules/ (not-pinned), by import and by require', async () => {
    const { skills } = await base({
      ...skill('npm', "import pkg from 'pkg'", 'pkg'),
      'npm/node_modules/pkg/package.json': '{ "name": "pkg", "main": "index.js" }',
      'npm/node_modules/pkg/index.js': "module.exports = 'unpinned'\n",
      ...skill(
        'req',
        "import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)",
        "require('pkg')",
      ),
      'req/node_modules/pkg/package.json': '{ "name": "pkg", "main": "index.js" }',
      'req/node_modules/pkg/index.js': "module.exports = 'unpinned'\n",
    })
    const source = await locked(skills)
    await refusedWith(say(source, 'npm'), 'not-pinned')
    // require() runs at call time, from the imported (pinned) module: still held.
    if (CAN_CHECK) await refusedWith(say(source, 'req'), 'not-pinned')
  })

  it('refuses ./lib.mjs when it is a symlink to a file outside the folder (leaves-folder)', async () => {
    const { dir, skills } = await base(skill('link', "import { word } from './lib.mjs'", 'word'))
    await writeFile(join(dir, 'outside.mjs'), "export const word = 'outside'\n")
    await symlink(join(dir, 'outside.mjs'), join(skills, 'link/lib.mjs'))
    await refusedWith(say(await locked(skills), 'link'), 'leaves-folder')
  })

  it('refuses a bare specifier that resolves outside the folder to a package that is not the host’s (leaves-folder)', async () => {
    const { dir, skills } = await base(skill('stray', "import s from 'stray'", 's'))
    await writeTree(join(dir, 'node_modules/stray'), {
      'package.json': '{ "name": "stray", "main": "index.js" }',
      'index.js': "module.exports = 'stray'\n",
    })
    await refusedWith(say(await locked(skills), 'stray'), 'leaves-folder')
  })

  it('refuses a file changed after the lock: at load (changed-since-pinned) and when a pinned module imports it later (changed)', async () => {
    const { skills } = await base({
      ...skill('late', '', "(await import('./late.mjs')).word"),
      'late/late.mjs': "export const word = 'pinned'\n",
    })
    const source = await locked(skills)
    const ref = (await discover(source)).skills.find((s) => s.id === 'late')!
    if (!CAN_CHECK) {
      await refusedWith(source.descriptor(ref), 'changed')
      return
    }
    expect(await codeOf(() => source.descriptor(ref))).toBe('resolved')
    const [tool] = (await source.descriptor(ref)).tools ?? []
    // The module is imported; the file it imports on call changes afterwards.
    await writeFile(join(skills, 'late/late.mjs'), "export const word = 'changed'\n")
    await refusedWith(tool!.execute({}, ctx), 'changed')
    // A load now sees the folder changed: the digest refuses it before any import.
    const again = (await discover(source)).skills.find((s) => s.id === 'late')!
    expect(again.pin?.state).toBe('changed-since-pinned')
    const err = await rejectsWith(source.descriptor(again), 'E_SKILL_NOT_PINNED')
    expect(err.data?.reason).toBe('changed-since-pinned')
  })

  it('refuses a native addon inside the folder (runtime-cannot-check): dlopen reads it past any hook', async () => {
    const { skills } = await base({
      ...skill(
        'addon',
        "import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)",
        "require('./native.node')",
      ),
      'addon/native.node': 'not really a shared object',
    })
    await refusedWith(say(await locked(skills), 'addon'), 'runtime-cannot-check')
  })

  it('refuses to import a locked module on a Node.js without module.registerHooks (runtime-cannot-check)', async () => {
    const { skills } = await base({
      ...skill('old', "import { word } from './lib.mjs'", 'word'),
      'old/lib.mjs': "export const word = 'pinned'\n",
    })
    // A real Node.js process whose module API lacks the hooks, as Node.js 22.14 and older do.
    const script = `
      delete (await import('node:module')).default.registerHooks
      const { FileSystemSkillSource } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist/index.js')).href)})
      const { lockSkills } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist/sources/index.js')).href)})
      const skills = process.argv[1]
      const lock = await lockSkills(new FileSystemSkillSource({ roots: skills }))
      const source = new FileSystemSkillSource({ roots: skills, lock, importModules: true })
      let ref
      for await (const s of source.discover()) if (s.id === 'old') ref = s
      try { await source.descriptor(ref); console.log('imported') }
      catch (e) { console.log(JSON.stringify({ code: e.code, reason: e.data?.reason })) }
    `
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, skills], {
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({
      code: 'E_SKILL_NOT_PINNED',
      reason: 'runtime-cannot-check',
    })
  })
})
