import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, hostname } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isNeutralPath } from '../../src/tiers/scripts/config/neutral-temp.js'
import { ROOT } from '../helpers/spawn-serve.js'

// Issue 35, the mount view: what /proc/self/mountinfo shows a script about
// skillhost's own folders (private workspace, skill copy) carries no host or
// user name, even when the host's TMPDIR does. A deployer's --workspace DIR
// shows its own path: a stated non-claim (docs/security.md).

const bin = join(ROOT, 'dist/cli/main.js')
let tmp = ''
let named = ''
let skill = ''

beforeAll(() => {
  tmp = mkdtempSync('/tmp/skillhost-mountinfo-')
  chmodSync(tmp, 0o755)
  // A TMPDIR that names the host, as a per-user temp folder can.
  named = join(tmp, `${hostname()}-tmp`)
  mkdirSync(named)
  chmodSync(named, 0o777)
  skill = join(tmp, 'mounts')
  mkdirSync(join(skill, 'scripts'), { recursive: true })
  writeFileSync(join(skill, 'SKILL.md'), '---\nname: mounts\ndescription: M.\n---\n# M\n')
  writeFileSync(join(skill, 'scripts/go.sh'), '#!/bin/sh\ncat /proc/self/mountinfo\n')
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe.skipIf(process.platform !== 'linux')('the mount view', () => {
  it('names no host or user in the paths of skillhost’s own folders, whatever TMPDIR is', async () => {
    const out = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, 'run', skill, 'scripts/go.sh'],
        { cwd: tmp, env: { ...process.env, TMPDIR: named } },
        (err, stdout) => resolve({ code: err ? 1 : 0, stdout }),
      )
    })
    expect(out.code).toBe(0)
    expect(out.stdout).toContain(' /work ')
    expect(out.stdout).toContain(' /skill ')
    expect(out.stdout).not.toContain(hostname())
    expect(out.stdout).not.toContain(named)
  })

  it('takes a path below the home folder or naming the host or user as not neutral', () => {
    expect(isNeutralPath('/tmp')).toBe(true)
    expect(isNeutralPath(join(homedir(), 'tmp'), [], homedir())).toBe(homedir() === '/')
    expect(isNeutralPath('/var/tmp/jane-doe', ['jane-doe'], '/home/jane-doe')).toBe(false)
    expect(isNeutralPath(`/run/${hostname()}/tmp`)).toBe(false)
  })
})
