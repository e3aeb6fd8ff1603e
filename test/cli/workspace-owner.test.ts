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

  it('serve: a root-owned folder scripts could not write is refused at start, with advice and unchanged', async () => {
    const ws = join(base, 'roots-own')
    mkdirSync(ws)
    chmodSync(ws, 0o755)
    const served = spawnServe([base, '--workspace', ws])
    expect(await served.exited).toBe(1)
    expect(served.stderr()).toContain('The folder belongs to root and scripts never run as root')
    expect(served.stderr()).toContain('a regular user owns')
    expect(served.stderr()).not.toMatch(/chgrp|chown/)
    expect(mode(ws)).toEqual({ uid: 0, gid: 0, mode: 0o755 })
  })
})
