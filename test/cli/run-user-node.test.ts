import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptInterpreters } from '../../src/tiers/scripts/index.js'
import { everyoneReaches, reachableNodeBin } from '../helpers/reachable-temp.js'
import { ROOT } from '../helpers/spawn-serve.js'

// One interpreter rule (issue 37.7): node, like python, is the user's — the
// first on PATH — unless the deployer pins one (--interpreter node=PATH).

const bin = join(ROOT, 'dist/cli/main.js')
// The node running this suite (22 or later), in a bin folder anyone can reach
// wherever the checkout lives, and the system's, when they differ.
const userBin = reachableNodeBin()
const systemNode = '/usr/bin/node'
const systemVersion = existsSync(systemNode)
  ? execFileSync(systemNode, ['--version'], { encoding: 'utf8' }).trim()
  : undefined
const differ = systemVersion !== undefined && systemVersion !== process.version
let tmp = ''
let skill = ''

function run(path: string, args: string[], cwd = tmp) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const env = { PATH: path, HOME: tmp }
    execFile(process.execPath, [bin, 'run', ...args], { cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-user-node-'))
  skill = join(tmp, 'versions')
  await mkdir(join(skill, 'scripts'), { recursive: true })
  await writeFile(join(skill, 'SKILL.md'), '---\nname: versions\ndescription: T.\n---\n# T\n')
  await writeFile(join(skill, 'scripts/v.js'), 'console.log(process.version)\n')
  await writeFile(
    join(skill, 'scripts/where.js'),
    "require('node:fs').writeFileSync('out.txt', 'x')\nconsole.log(process.execPath)\n",
  )
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
  await rm(dirname(userBin), { recursive: true, force: true })
})

describe('node is the user’s, from PATH, unless pinned', () => {
  it('the allow-list takes node from PATH, and a deployer’s entry pins it', () => {
    const lookup = { path: `${userBin}:/usr/bin:/bin` }
    expect(scriptInterpreters({}, lookup).node).toEqual([join(userBin, 'node')])
    if (existsSync(systemNode))
      expect(scriptInterpreters({}, { path: '/usr/bin:/bin' }).node).toEqual([systemNode])
    // Pinned: the deployer's node wins over PATH's.
    if (existsSync(systemNode))
      expect(scriptInterpreters({ node: systemNode }, lookup).node).toEqual([systemNode])
    // A node behind a folder the sandbox user cannot pass (a 0700 home) is
    // left for the system's, not a sandbox refused at setup.
    const closed = join(tmp, 'closed')
    mkdirSync(join(closed, 'bin'), { recursive: true })
    chmodSync(closed, 0o700)
    symlinkSync(process.execPath, join(closed, 'bin/node'))
    const behind = scriptInterpreters({}, { path: `${join(closed, 'bin')}:/usr/bin:/bin` }).node
    expect(behind?.[0]).not.toBe(join(closed, 'bin/node'))
    // No PATH lookup at all: the system default stays.
    expect(scriptInterpreters({}, { path: null }).node?.[0]).not.toBe(join(userBin, 'node'))
  })

  it.skipIf(process.platform !== 'linux' || !differ)(
    'a script prints the version of the PATH’s node inside the sandbox, or the pinned one',
    async () => {
      const user = await run(`${userBin}:/usr/bin:/bin`, [skill, 'scripts/v.js'])
      expect(user.code, user.stderr).toBe(0)
      expect(user.stdout).toBe(`${process.version}\n`)
      const system = await run('/usr/bin:/bin', [skill, 'scripts/v.js'])
      expect(system.code, system.stderr).toBe(0)
      expect(system.stdout).toBe(`${systemVersion}\n`)
      const pinned = await run(`${userBin}:/usr/bin:/bin`, [
        skill,
        'scripts/v.js',
        '--interpreter',
        `node=${systemNode}`,
      ])
      expect(pinned.code, pinned.stderr).toBe(0)
      expect(pinned.stdout).toBe(`${systemVersion}\n`)
    },
  )
})

// The defect this guards (issue 37.7 follow-up): a node whose host path begins
// with the workspace mount (this machine's /work/node22/…) was bound at that
// path, under the workspace mount, so bwrap left node22/node_modules/… in the
// user's folder after every call, and the script read the host path.
const suiteBin = dirname(process.execPath)
const underWork = process.execPath.startsWith('/work/') && everyoneReaches(process.execPath)
describe.skipIf(process.platform !== 'linux' || !underWork)('a PATH node under /work', () => {
  it('runs from /opt/skillhost/node/<version>, twice, and the user’s folder holds only what the script wrote', async () => {
    const ws = await mkdtemp(join(tmp, 'ws-'))
    const path = `${suiteBin}:/usr/bin:/bin`
    for (let round = 0; round < 2; round++) {
      const out = await run(path, [skill, 'scripts/where.js'], ws)
      expect(out.code, out.stderr).toBe(0)
      expect(out.stdout).toBe(`/opt/skillhost/node/${process.version.slice(1)}/bin/node\n`)
      expect(`${out.stdout}${out.stderr}`).not.toContain(suiteBin)
    }
    expect(readdirSync(ws)).toEqual(['out.txt'])
  })
})
