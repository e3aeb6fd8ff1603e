import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import module from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { scanSkillFolder } from '../../src/sources/discovery/scan-skill-folder.js'
import { SkillDigests } from '../../src/sources/lock/skill-digests.js'
import { importModuleTools } from '../../src/sources/reading/import-module-tools.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import { ATTEMPTS } from '../helpers/swapper.js'

// The attack: a locked skill's module imports ./lib.mjs, and a writer in the
// skill folder swaps lib.mjs between its pinned bytes and changed bytes as
// fast as it can while the host imports the module again and again. The
// digest was checked before each import; only the load hook stands between
// a swap made after that check and the host process running the changed
// bytes. A win is any evaluation of the changed lib.mjs.
// Module tools must be imported by Node itself (vitest.config.ts hands every
// `skillhost-native-import-*` folder to Node), so its hooks see them.
const CAN_CHECK = typeof (module as { registerHooks?: unknown }).registerHooks === 'function'
const REPO = fileURLToPath(new URL('../../', import.meta.url))

const PINNED =
  "globalThis.__skillhostPinnedRuns = (globalThis.__skillhostPinnedRuns ?? 0) + 1\nexport const word = 'pinned'\n"
const CHANGED =
  "globalThis.__skillhostChangedRuns = (globalThis.__skillhostChangedRuns ?? 0) + 1\nexport const word = 'changed'\n"

/** A separate process (another core) that renames fresh copies of each version over lib.mjs until killed. */
const SCRIPT = `
const fs = require('node:fs')
const [dir, pinned, changed] = process.argv.slice(2)
// Written beside the skill folder (the scan never sees it), renamed in whole.
const next = dir + '/../.next'
let swaps = 0
process.on('SIGTERM', () => { fs.writeFileSync(dir + '/lib.mjs', pinned); process.stdout.write(String(swaps)); process.exit(0) })
process.stdout.write('ready\\n')
function batch() {
  for (let i = 0; i < 200; i++) {
    fs.writeFileSync(next, swaps % 2 === 0 ? changed : pinned)
    fs.renameSync(next, dir + '/lib.mjs')
    swaps++
  }
  setImmediate(batch)
}
batch()
`

const bases: string[] = []
afterAll(async () => {
  await Promise.all(bases.splice(0).map((b) => rm(b, { recursive: true, force: true })))
})

async function startWriter(base: string, dir: string): Promise<() => Promise<number>> {
  const file = join(base, 'writer.cjs')
  await writeFile(file, SCRIPT)
  const child: ChildProcess = spawn(process.execPath, [file, dir, PINNED, CHANGED], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString()
      if (out.includes('ready')) resolve()
    })
    child.once('exit', () => reject(new Error('writer exited early')))
  })
  return () =>
    new Promise<number>((resolve) => {
      child.once('exit', () => resolve(Number(out.replace('ready\n', '')) || 0))
      child.kill('SIGTERM')
    })
}

it.runIf(CAN_CHECK)(
  `never runs changed bytes of a locked module's import while they are swapped in (${ATTEMPTS} imports)`,
  async () => {
    const base = await mkdtemp(join(tmpdir(), 'skillhost-native-import-'))
    bases.push(base)
    await mkdir(join(base, 'node_modules'))
    await symlink(await realpath(REPO), join(base, 'node_modules/skillhost'))
    const dir = join(base, 'racer')
    await mkdir(dir)
    await writeFile(join(dir, 'lib.mjs'), PINNED)
    await writeFile(
      join(dir, 'tools.mjs'),
      "import { Tool } from 'skillhost'\nimport { word } from './lib.mjs'\nexport const say = new Tool({ name: 'say', description: 'Says.', inputSchema: { type: 'object' }, handler: () => word })\n",
    )
    await writeFile(join(dir, 'SKILL.md'), '---\nname: racer\ndescription: Races.\n---\nBody.\n')
    const limits = resolveSourceLimits()
    // What the lock pins: each file's hash from the reads whose digest it records.
    const pinned = await new SkillDigests(limits.maxFileBytes).fileDigests(
      dir,
      await scanSkillFolder(dir, limits),
    )
    const g = globalThis as { __skillhostPinnedRuns?: number; __skillhostChangedRuns?: number }
    const stop = await startWriter(base, dir)
    let imported = 0
    let refused = 0
    try {
      for (let i = 0; i < ATTEMPTS; i++) {
        const scan = await scanSkillFolder(dir, limits)
        // A new version per attempt: its own token, so every attempt loads lib.mjs afresh.
        const pin = { id: 'racer', dir, scan, ...pinned }
        try {
          await importModuleTools(join(dir, 'tools.mjs'), `race-${i}`, 'tools.mjs', pin)
          imported += 1
        } catch (err) {
          if (!SkillHostError.is(err, 'E_SKILL_NOT_PINNED')) throw err
          expect(err.data?.reason).toBe('changed')
          refused += 1
        }
      }
    } finally {
      const swaps = await stop()
      const wins = g.__skillhostChangedRuns ?? 0
      // The figures docs/security.md quotes.
      console.log(
        `pinned import race: ${ATTEMPTS} attempts, ${swaps} swaps, ${imported} imported, ${refused} refused, ${wins} wins`,
      )
      expect(swaps).toBeGreaterThan(0)
    }
    expect(imported + refused).toBe(ATTEMPTS)
    expect(g.__skillhostPinnedRuns).toBe(imported)
    expect(g.__skillhostChangedRuns ?? 0).toBe(0)
  },
)
