import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../../src/index.js'
import { lockSkills, type SkillLock, type SkillRef } from '../../../src/sources/index.js'
import { parseSkillLock, skillLockFile } from '../../../src/sources/lock/skill-lock.js'
import { createScriptSandbox, type ScriptSandbox } from '../../../src/tiers/scripts/index.js'
import { runScriptOnce } from '../../../src/tiers/scripts/internal.js'
import { codeOf } from '../../helpers/error-code.js'
import { ranResult } from '../../helpers/script-outcome.js'

// Issue 37 item 3: a plugin's files are pinned with the skill. The lock
// records the digest of the plugin files a skill copy carries; under it, a
// plugin file changed after the lock (or a plugin that appeared) refuses the
// call with E_SKILL_NOT_PINNED, and the pinned bytes run again.
const base = mkdtempSync(join(tmpdir(), 'skillhost-plugin-lock-'))
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))
const root = join(base, 'plugins')
const plugin = join(root, 'toolbox')

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

const LIB = 'GREETING="pinned"\n'
put(join(plugin, 'shared/lib.sh'), LIB)
const skill = join(plugin, 'skills/tool')
put(join(skill, 'SKILL.md'), '---\nname: tool\ndescription: Uses the plugin lib.\n---\nRun.\n')
put(join(skill, 'scripts/rel.sh'), '. "$(dirname "$0")/../../../shared/lib.sh"\necho "$GREETING"\n')

describe.skipIf(process.platform !== 'linux')('a plugin skill under a lock', () => {
  let sandbox: ScriptSandbox
  const sources: FileSystemSkillSource[] = []
  beforeAll(async () => {
    sandbox = await createScriptSandbox()
    return () => {
      for (const s of sources) s.close()
      return sandbox.dispose()
    }
  })

  async function lockNow(): Promise<SkillLock> {
    const source = new FileSystemSkillSource({ roots: [root] })
    sources.push(source)
    // Through the file format, as `skillhost lock` writes and `--locked` reads it.
    return parseSkillLock(JSON.stringify(skillLockFile(await lockSkills(source))))
  }

  async function runLocked(lock: SkillLock) {
    const source = new FileSystemSkillSource({ roots: [root], lock })
    sources.push(source)
    const [found] = await source.discoverBatch()
    const ref: SkillRef = { id: found!.id, version: found!.version }
    const call = { path: 'scripts/rel.sh', argv: [] }
    return ranResult(runScriptOnce(sandbox.config, { source, ref, call }))
  }

  it('pins nothing of a plugin before there is one; a plugin that appears is refused', async () => {
    const lock = await lockNow()
    expect(lock.skills.get('tool')?.plugin).toBeUndefined()
    put(join(plugin, '.claude-plugin/plugin.json'), '{"name":"toolbox"}\n')
    expect(await codeOf(runLocked(lock))).toBe('E_SKILL_NOT_PINNED')
  })

  it('records the plugin digest, runs the pinned plugin, refuses a changed plugin file', async () => {
    const lock = await lockNow()
    expect(lock.skills.get('tool')?.plugin?.digest).toMatch(/^sha256-/)
    expect((await runLocked(lock)).stdout).toBe('pinned\n')
    put(join(plugin, 'shared/lib.sh'), 'GREETING="changed"\n')
    expect(await codeOf(runLocked(lock))).toBe('E_SKILL_NOT_PINNED')
    // A file added to the plugin is a change too.
    put(join(plugin, 'shared/lib.sh'), LIB)
    put(join(plugin, 'shared/extra.txt'), 'new\n')
    expect(await codeOf(runLocked(lock))).toBe('E_SKILL_NOT_PINNED')
    rmSync(join(plugin, 'shared/extra.txt'))
    expect((await runLocked(lock)).stdout).toBe('pinned\n')
  })
})
