import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../../src/index.js'
import { createSkillManager } from '../../../src/manager/index.js'
import type { SkillRef } from '../../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../../src/tiers/scripts/index.js'
import { runScriptOnce } from '../../../src/tiers/scripts/internal.js'
import { ranResult } from '../../helpers/script-outcome.js'

// Issue 37 item 3: a skill inside a Claude Code plugin sees its plugin root
// read-only at the same relative place (`../../../shared/` from its scripts),
// with ${CLAUDE_PLUGIN_ROOT} pointing there; a skill outside a plugin sees
// nothing above its own folder.
const base = mkdtempSync(join(tmpdir(), 'skillhost-plugin-skill-'))
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))
const root = join(base, 'plugins')

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

const plugin = join(root, 'toolbox')
put(join(plugin, '.claude-plugin/plugin.json'), '{"name":"toolbox"}\n')
put(join(plugin, 'shared/lib.sh'), 'GREETING="hello from shared"\n')
put(join(plugin, 'shared/x.txt'), 'plugin data\n')
const skill = join(plugin, 'skills/tool')
put(
  join(skill, 'SKILL.md'),
  `---\nname: tool\ndescription: Uses the plugin shared files.\n---\nSource \${CLAUDE_PLUGIN_ROOT}/shared/lib.sh in \${CLAUDE_SKILL_DIR}.\n`,
)
put(join(skill, 'scripts/rel.sh'), '. "$(dirname "$0")/../../../shared/lib.sh"\necho "$GREETING"\n')
put(join(skill, 'scripts/env.sh'), '. "$CLAUDE_PLUGIN_ROOT/shared/lib.sh"\necho "$GREETING"\n')
// Run by its /skill path (as a body's ${CLAUDE_SKILL_DIR} names it): /skill is a
// symlink to the skill's place in the plugin, so `..` still leads to the plugin.
put(join(skill, 'scripts/via-skill.sh'), 'exec bash /skill/scripts/rel.sh\n')
put(
  join(skill, 'scripts/read.py'),
  'from pathlib import Path\nprint((Path(__file__).parents[3] / "shared" / "x.txt").read_text(), end="")\n',
)
put(
  join(skill, 'scripts/write.sh'),
  [
    'mkdir -p "$(dirname "$0")/../data" && echo kept > "$(dirname "$0")/../data/state"',
    'cat /skill/data/state',
    'if echo x > "$CLAUDE_PLUGIN_ROOT/shared/new" 2>/dev/null; then echo plugin-writable; else echo plugin-read-only; fi',
    '',
  ].join('\n'),
)
// Not a plugin: the same layout without .claude-plugin/plugin.json.
const loose = join(root, 'loose')
put(join(loose, 'shared/secret.txt'), 'not yours\n')
const solo = join(loose, 'skills/solo')
put(
  join(solo, 'SKILL.md'),
  `---\nname: solo\ndescription: Not in a plugin.\n---\nRoot \${CLAUDE_PLUGIN_ROOT}.\n`,
)
put(
  join(solo, 'scripts/peek.sh'),
  [
    'cat "$(dirname "$0")/../../../shared/secret.txt" 2>/dev/null || echo no-parent-files',
    `echo "root=\${CLAUDE_PLUGIN_ROOT-unset}"`,
    'test -e /plugin && echo has-plugin || echo no-plugin',
    '',
  ].join('\n'),
)

describe.skipIf(process.platform !== 'linux')('a skill in a Claude Code plugin', () => {
  let sandbox: ScriptSandbox
  let source: FileSystemSkillSource
  const refs = new Map<string, SkillRef>()
  beforeAll(async () => {
    sandbox = await createScriptSandbox()
    source = new FileSystemSkillSource({ roots: [root] })
    for (const s of await source.discoverBatch()) refs.set(s.id, { id: s.id, version: s.version })
    return () => {
      source.close()
      return sandbox.dispose()
    }
  })

  const run = (id: string, path: string) =>
    ranResult(
      runScriptOnce(sandbox.config, { source, ref: refs.get(id)!, call: { path, argv: [] } }),
    )

  it('sources ../../../shared/lib.sh relative to $0', async () => {
    const result = await run('tool', 'scripts/rel.sh')
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe('hello from shared\n')
  })

  it('sources it too when the script is run by its /skill path', async () => {
    const result = await run('tool', 'scripts/via-skill.sh')
    expect(result.stdout).toBe('hello from shared\n')
  })

  it('takes the script by the paths the sandbox shows: /plugin/skills/tool/… and /skill/…', async () => {
    for (const path of ['/plugin/skills/tool/scripts/rel.sh', '/skill/scripts/rel.sh']) {
      expect((await run('tool', path)).stdout).toBe('hello from shared\n')
    }
  })

  it('sources $CLAUDE_PLUGIN_ROOT/shared/lib.sh', async () => {
    const result = await run('tool', 'scripts/env.sh')
    expect(result.stdout).toBe('hello from shared\n')
  })

  it('reads Path(__file__).parents[3] / "shared" / "x.txt" in python', async () => {
    const result = await run('tool', 'scripts/read.py')
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe('plugin data\n')
  })

  it('keeps the skill writable and the plugin root read-only; the source folder is unchanged', async () => {
    const result = await run('tool', 'scripts/write.sh')
    expect(result.stdout).toBe('kept\nplugin-read-only\n')
    expect(readdirSync(skill).sort()).toEqual(['SKILL.md', 'scripts'])
    expect(readdirSync(join(plugin, 'shared')).sort()).toEqual(['lib.sh', 'x.txt'])
  })

  it('fills a loaded body’s CLAUDE_PLUGIN_ROOT placeholder with /plugin in a plugin, the skill folder outside', async () => {
    const manager = await createSkillManager({
      sources: [source],
      gate: async () => undefined,
      defaultChannel: 'inline',
    })
    const ctx = manager.createTurnContext()
    expect((await manager.load('tool', ctx)).body).toBe('Source /plugin/shared/lib.sh in /skill.\n')
    expect((await manager.load('solo', ctx)).body).toBe('Root /skill.\n')
    await manager.dispose()
  })

  it('shows a skill outside a plugin nothing above its folder', async () => {
    const result = await run('solo', 'scripts/peek.sh')
    expect(result.stdout).toBe('no-parent-files\nroot=unset\nno-plugin\n')
  })
})
