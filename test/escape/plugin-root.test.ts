import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../src/index.js'
import type { SkillRef } from '../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'
import { runScriptOnce } from '../../src/tiers/scripts/internal.js'
import { codeOf } from '../helpers/error-code.js'
import { ranResult } from '../helpers/script-outcome.js'

// Issue 37 item 3, attacked: a plugin skill sees its plugin root, and only
// what a skill itself may show. Links out of the plugin are left out (as a
// skill's are), a plugin.json above the root the deployer gave is never
// seen, a symlinked .claude-plugin makes no plugin, and a plugin past the
// source limits is refused, not copied.
const base = mkdtempSync(join(tmpdir(), 'skillhost-plugin-escape-'))
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

function skill(dir: string, name: string, script: string): void {
  put(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Probe ${name}.\n---\nRun.\n`)
  put(join(dir, 'scripts/probe.sh'), script)
}

const PEEK = [
  'P="$(dirname "$0")/../../.."',
  'for f in shared/etc/passwd shared/passwd shared/ok.txt; do',
  '  if cat "$P/$f" >/dev/null 2>&1; then echo "$f readable"; else echo "$f absent"; fi',
  'done',
  `echo "root=\${CLAUDE_PLUGIN_ROOT-unset}"`,
  '',
].join('\n')

// 1. Links in a plugin to /etc (a folder) and /etc/passwd (a file).
const linked = join(base, 'root1', 'linked')
put(join(linked, '.claude-plugin/plugin.json'), '{}\n')
put(join(linked, 'shared/ok.txt'), 'ok\n')
symlinkSync('/etc', join(linked, 'shared/etc'))
symlinkSync('/etc/passwd', join(linked, 'shared/passwd'))
skill(join(linked, 'skills/linked'), 'linked', PEEK)

// 2. A plugin.json above the root the deployer gave.
const above = join(base, 'above')
put(join(above, '.claude-plugin/plugin.json'), '{}\n')
put(join(above, 'shared/ok.txt'), 'ok\n')
skill(join(above, 'skills/inner'), 'inner', PEEK)

// 3. A .claude-plugin that is a symlink to a folder with a plugin.json elsewhere.
const faked = join(base, 'root3', 'faked')
put(join(base, 'elsewhere/plugin.json'), '{}\n')
mkdirSync(faked, { recursive: true })
symlinkSync(join(base, 'elsewhere'), join(faked, '.claude-plugin'))
put(join(faked, 'shared/ok.txt'), 'ok\n')
skill(join(faked, 'skills/faked'), 'faked', PEEK)

// 4. A plugin with more files than the source limits allow one skill.
const huge = join(base, 'root4', 'huge')
put(join(huge, '.claude-plugin/plugin.json'), '{}\n')
for (let i = 0; i < 30; i++) put(join(huge, `shared/f${i}.txt`), `${i}\n`)
skill(join(huge, 'skills/huge'), 'huge', 'echo ran\n')

// 5. A plugin file larger than limits.maxFileBytes.
const fat = join(base, 'root5', 'fat')
put(join(fat, '.claude-plugin/plugin.json'), '{}\n')
put(join(fat, 'shared/big.bin'), 'x'.repeat(64 * 1024))
skill(join(fat, 'skills/fat'), 'fat', 'echo ran\n')

describe.skipIf(process.platform !== 'linux')('plugin roots under attack', () => {
  let sandbox: ScriptSandbox
  const sources: FileSystemSkillSource[] = []
  beforeAll(async () => {
    sandbox = await createScriptSandbox()
    return () => {
      for (const s of sources) s.close()
      return sandbox.dispose()
    }
  })

  async function probe(roots: string[], limits = {}) {
    const source = new FileSystemSkillSource({ roots, limits })
    sources.push(source)
    const [found] = await source.discoverBatch()
    const ref: SkillRef = { id: found!.id, version: found!.version }
    const call = { path: 'scripts/probe.sh', argv: [] }
    return runScriptOnce(sandbox.config, { source, ref, call })
  }

  it('leaves out a plugin symlink to /etc and to /etc/passwd; the plugin’s own file is there', async () => {
    const result = await ranResult(probe([join(base, 'root1')]))
    expect(result.stdout).toBe(
      'shared/etc/passwd absent\nshared/passwd absent\nshared/ok.txt readable\nroot=/plugin\n',
    )
  })

  it('never sees a plugin.json above the root the deployer gave', async () => {
    const result = await ranResult(probe([join(above, 'skills')]))
    expect(result.stdout).toBe(
      'shared/etc/passwd absent\nshared/passwd absent\nshared/ok.txt absent\nroot=unset\n',
    )
  })

  it('makes no plugin of a symlinked .claude-plugin', async () => {
    const result = await ranResult(probe([join(base, 'root3')]))
    expect(result.stdout).toContain('shared/ok.txt absent\nroot=unset\n')
  })

  it('refuses a plugin with more files than limits.maxFilesPerSkill', async () => {
    expect(await codeOf(ranResult(probe([join(base, 'root4')], { maxFilesPerSkill: 20 })))).toBe(
      'E_SKILL_SOURCE_TOO_LARGE',
    )
    // The same plugin within the limit runs.
    expect((await ranResult(probe([join(base, 'root4')]))).stdout).toBe('ran\n')
  })

  it('refuses a plugin file larger than limits.maxFileBytes', async () => {
    const code = await codeOf(ranResult(probe([join(base, 'root5')], { maxFileBytes: 4096 })))
    expect(code).toBe('E_SKILL_SOURCE_TOO_LARGE')
  })
})
