import { execFile } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, spawnServe } from '../helpers/spawn-serve.js'

// `--workspace DIR` never changes DIR's owner or mode (issue 23): scripts run
// as DIR's owner, and a root-owned DIR they could not write is refused at start.
const USER = 1000
const base = mkdtempSync(join(tmpdir(), 'skillhost-cli-ws-owner-'))
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))

const skill = join(base, 'writer')
mkdirSync(join(skill, 'scripts'), { recursive: true })
writeFileSync(join(skill, 'SKILL.md'), '---\nname: writer\ndescription: Writes a file.\n---\n# W\n')
writeFileSync(join(skill, 'scripts/write.sh'), '#!/bin/sh\necho made > "$1"\n')

function mode(path: string) {
  const st = statSync(path)
  return { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }
}

const asRoot = process.platform === 'linux' && process.getuid?.() === 0

describe.skipIf(!asRoot)('--workspace keeps the folder its owner gave', () => {
  it("run: the script writes the user's folder as that user; owner and mode unchanged", async () => {
    const ws = join(base, 'mine')
    mkdirSync(ws)
    chownSync(ws, USER, USER)
    chmodSync(ws, 0o700)
    const out = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['dist/cli/main.js', 'run', skill, 'scripts/write.sh', '--workspace', ws, '--', 'out.txt'],
        { cwd: ROOT },
        (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
      )
    })
    expect(out).toMatchObject({ code: 0 })
    expect(mode(ws)).toEqual({ uid: USER, gid: USER, mode: 0o700 })
    expect(statSync(join(ws, 'out.txt')).uid).toBe(USER)
  })

  it('run --workspace . in a folder root owns: a typed error naming the fixes, both of which work (issue 40.10)', async () => {
    const here = join(base, 'roots-cwd')
    mkdirSync(here)
    chmodSync(here, 0o755)
    const inHere = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(ROOT, 'dist/cli/main.js'), 'run', ...args],
          { cwd: here },
          (err, stdout, stderr) =>
            resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        )
      })
    const refused = await inHere([skill, 'scripts/write.sh', '--workspace', '.', '--', 'out.txt'])
    expect(refused.code).toBe(69)
    expect(refused.stderr).toMatch(
      /^skillhost run: E_SKILL_WORKSPACE_FAILED: --workspace \. belongs to root/,
    )
    expect(refused.stderr).toContain('as uid 65534 they cannot write it (mode 755, kept as it is)')
    expect(refused.stderr).toContain('Leave --workspace out')
    expect(refused.stderr).toContain('install -d -o 65534 -m 700 DIR')
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(mode(here)).toEqual({ uid: 0, gid: 0, mode: 0o755 })
    const json = await inHere([
      '--json',
      skill,
      'scripts/write.sh',
      '--workspace',
      '.',
      '--',
      'out.txt',
    ])
    expect(json.stderr).toBe('')
    expect(JSON.parse(json.stdout).error.code).toBe('E_SKILL_WORKSPACE_FAILED')
    // The first fix: without --workspace, what the script makes comes back here, root's.
    const copied = await inHere([skill, 'scripts/write.sh', '--', 'out.txt'])
    expect(copied.code).toBe(0)
    expect(statSync(join(here, 'out.txt')).uid).toBe(0)
    // The second: the folder the message says to make.
    const made = join(here, 'for-scripts')
    const install = await new Promise<number>((resolve) =>
      execFile('install', ['-d', '-o', '65534', '-m', '700', made], (err) => resolve(err ? 1 : 0)),
    )
    expect(install).toBe(0)
    const inMade = await inHere([skill, 'scripts/write.sh', '--workspace', made, '--', 'made.txt'])
    expect(inMade.code).toBe(0)
    expect(statSync(join(made, 'made.txt')).uid).toBe(65534)
    expect(mode(here)).toEqual({ uid: 0, gid: 0, mode: 0o755 })
  })

  it('serve: a root-owned folder scripts could not write is refused at start, with advice and unchanged', async () => {
    const ws = join(base, 'roots-own')
    mkdirSync(ws)
    chmodSync(ws, 0o755)
    const served = spawnServe([base, '--workspace', ws])
    expect(await served.exited).toBe(1)
    expect(served.stderr()).toContain('The folder belongs to root and scripts never run as root')
    expect(served.stderr()).toContain('a regular user owns')
    expect(served.stderr()).toContain('install -d -o 65534 -m 700 DIR')
    expect(served.stderr()).not.toMatch(/chgrp|chown/)
    expect(mode(ws)).toEqual({ uid: 0, gid: 0, mode: 0o755 })
  })
})
