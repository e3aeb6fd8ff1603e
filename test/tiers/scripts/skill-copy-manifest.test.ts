import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../../src/index.js'
import type { SkillRef } from '../../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../../src/tiers/scripts/index.js'
import { runScriptOnce } from '../../../src/tiers/scripts/internal.js'
import { codeOf } from '../../helpers/error-code.js'
import { ranResult } from '../../helpers/script-outcome.js'

// A script may read its own SKILL.md, as it can in the skill's folder on disk
// (public skills grep their own manifest; the corpus task mode found one that
// failed only inside). The copy carries SKILL.md byte for byte, frontmatter,
// CRLF and all, and under the source's pin like every other file.
const base = mkdtempSync(join(tmpdir(), 'skillhost-copy-manifest-'))
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))
const skillDir = join(base, 'skills', 'self-aware')
const MANIFEST =
  '---\r\nname: self-aware\r\ndescription: Reads its own manifest.\r\n---\r\nSteps:\r\n- count them\r\n'
mkdirSync(join(skillDir, 'scripts'), { recursive: true })
writeFileSync(join(skillDir, 'SKILL.md'), MANIFEST)
writeFileSync(join(skillDir, 'scripts/self.sh'), 'cat "$(dirname "$0")/../SKILL.md"\n')

describe.skipIf(process.platform !== 'linux')('the skill copy carries SKILL.md', () => {
  let sandbox: ScriptSandbox
  let source: FileSystemSkillSource
  let ref: SkillRef
  beforeAll(async () => {
    sandbox = await createScriptSandbox()
    source = new FileSystemSkillSource({ roots: [join(base, 'skills')] })
    const [found] = await source.discoverBatch()
    ref = { id: found!.id, version: found!.version }
    return () => {
      source.close()
      return sandbox.dispose()
    }
  })

  it('lets a script read its own SKILL.md, byte for byte', async () => {
    const call = { path: 'scripts/self.sh', argv: [] }
    const result = await ranResult(runScriptOnce(sandbox.config, { source, ref, call }))
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe(MANIFEST)
    // Listing and skill files stay what they were: SKILL.md is the body, not a file.
    expect(await source.list(ref)).toEqual(['scripts/self.sh'])
  })

  it('refuses a SKILL.md changed since discovery, as any other file', async () => {
    writeFileSync(join(skillDir, 'SKILL.md'), MANIFEST.replace('count', 'skip'))
    const call = { path: 'scripts/self.sh', argv: [] }
    expect(await codeOf(ranResult(runScriptOnce(sandbox.config, { source, ref, call })))).toMatch(
      /^E_SKILL_/,
    )
    writeFileSync(join(skillDir, 'SKILL.md'), MANIFEST)
    expect(readFileSync(join(skillDir, 'SKILL.md'), 'utf8')).toBe(MANIFEST)
  })
})
