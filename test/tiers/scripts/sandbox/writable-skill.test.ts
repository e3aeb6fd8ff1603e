import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runSkillScript } from '../../../../src/tiers/scripts/internal.js'
import { runCli } from '../../../helpers/run-cli.js'
import { files, makeRig, onLinux, type Rig, script } from '../../../helpers/sandbox.js'

const MAIN = [
  'here="$(dirname "$0")"',
  'mkdir "$here/../data" && echo cached > "$here/../data/state.txt"',
  'cat "$here/../data/state.txt"',
  'LC_ALL=C ls "$here/.."',
].join('\n')

// Issue 37, item 2: a skill may write into its own folder, for the call.
describe.skipIf(!onLinux)('the skill folder is writable for the call', () => {
  let rig: Rig
  let root: string
  beforeAll(async () => {
    rig = await makeRig({ limits: { writableBytes: 4 * 1024 * 1024 } })
    root = await rig.workspace.materialize(
      { id: 'writer', version: '1' },
      files({ 'scripts/main.sh': MAIN, 'scripts/fill.sh': FILL, 'SKILL.md': '# writer\n' }),
    )
  })
  afterAll(async () => {
    await rig?.cleanup()
  })
  const run = (path: string) =>
    runSkillScript(rig.config, {
      skill: 'writer',
      root,
      script: script({ path, interpreter: 'sh' }),
      args: {},
    })

  it('lets a script make data/ beside its scripts; the copy on the host is unchanged', async () => {
    const before = readdirSync(root).sort()
    const r = await run('scripts/main.sh')
    expect(r.stderr).toBe('')
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toBe('cached\nSKILL.md\ndata\nscripts\n')
    expect(readdirSync(root).sort()).toEqual(before)
    expect(existsSync(join(root, 'data'))).toBe(false)
  })

  it('gives the next call a fresh copy: what the last call wrote is gone', async () => {
    const first = await run('scripts/main.sh')
    const second = await run('scripts/main.sh')
    // mkdir would fail on a kept data/; both calls made it afresh.
    expect(first.exitCode).toBe(0)
    expect(second.exitCode).toBe(0)
    expect(second.stdout).toBe(first.stdout)
  })

  it('stops a script that fills its folder past the writable cap with ENOSPC', async () => {
    const r = await run('scripts/fill.sh')
    expect(r.stdout).toMatch(/^wrote [0-9]+ KiB\n$/)
    const kib = Number(/wrote ([0-9]+)/.exec(r.stdout)?.[1])
    // The folder grew by at most the cap (4 MiB), and the write that passed it failed.
    expect(kib).toBeLessThanOrEqual(4 * 1024)
    expect(kib).toBeGreaterThan(3 * 1024)
    expect(r.stderr).toMatch(/No space left on device/)
    expect(readFileSync(join(root, 'scripts/fill.sh'), 'utf8')).toBe(FILL)
  })

  it('leaves nothing on the host: the copy goes at dispose, the call’s writes went with the call', async () => {
    await run('scripts/main.sh')
    expect(readdirSync(rig.workspace.scratchDir)).toEqual([])
    await rig.workspace.dispose(root)
    expect(existsSync(root)).toBe(false)
    expect(readdirSync(rig.workspace.skillsDir)).toEqual([])
  })
})

/** Appends 64 KiB blocks to a file in the skill folder until a write fails; says how much it wrote. */
const FILL = [
  'f="$(dirname "$0")/../big"',
  'n=0',
  'while [ $n -lt 8192 ]; do',
  '  head -c 65536 /dev/zero >> "$f" || break',
  '  n=$((n+64))',
  'done',
  'echo "wrote $n KiB"',
].join('\n')

describe.skipIf(!onLinux)('skillhost run: a script writes data/ in its own folder', () => {
  it('works twice from a fresh copy, and the source folder is unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillhost-writable-src-'))
    chmodSync(dir, 0o755)
    try {
      const skill = join(dir, 'writer')
      mkdirSync(join(skill, 'scripts'), { recursive: true })
      writeFileSync(join(skill, 'SKILL.md'), '---\nname: writer\ndescription: W.\n---\n# W\n')
      writeFileSync(join(skill, 'scripts/main.sh'), MAIN)
      const first = await runCli(['run', skill, 'scripts/main.sh'])
      const second = await runCli(['run', skill, 'scripts/main.sh'])
      // The copy holds the skill's folder as on disk, SKILL.md included.
      expect(first.stdout).toBe('cached\nSKILL.md\ndata\nscripts\n')
      expect(first.code).toBe(0)
      expect(second.stdout).toBe(first.stdout)
      expect(readdirSync(skill).sort()).toEqual(['SKILL.md', 'scripts'])
      expect(readFileSync(join(skill, 'scripts/main.sh'), 'utf8')).toBe(MAIN)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
