import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createPathTranslator,
  type SkillScriptConfig,
} from '../../src/sandbox/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createQuickJsGuest } from '../../src/tiers/isolated/index.js'

/** The bundled example skills. */
export const EXAMPLES = fileURLToPath(new URL('../../examples/skills', import.meta.url))
const SYSTEM_READ_PATHS = ['/usr', '/bin', '/lib', '/lib64']

/** A manager over examples/skills with all three tiers on: module imports, QuickJS guests, bubblewrap scripts. */
export async function makeTierRig(): Promise<{ manager: SkillManager; cleanup(): Promise<void> }> {
  const base = mkdtempSync(join(tmpdir(), 'skillhost-adapter-'))
  chmodSync(base, 0o755)
  const pool = createQuickJsGuest({ poolSize: 1 })
  const handle = await createBubblewrapHandle()
  const workspace = await createDirectoryWorkspace({ baseDir: join(base, 'ws') })
  const scripts: SkillScriptConfig = {
    handle,
    workspace,
    policy: {
      filesystem: {
        allowRead: [workspace.skillsDir, ...SYSTEM_READ_PATHS],
        denyRead: [],
        allowWrite: [workspace.scratchDir],
        denyWrite: [],
      },
      network: { allowedDomains: [] },
    },
    translator: createPathTranslator({ hiddenHostPaths: [base] }),
    interpreters: { sh: ['/bin/sh'] },
    interpreterReadPaths: SYSTEM_READ_PATHS,
    maxTimeoutSeconds: 20,
    defaultTimeoutSeconds: 10,
    maxOutputBytes: 64 * 1024,
    hostEnvIsolated: true,
  }
  const manager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: [EXAMPLES], importModules: true })],
    gate: async () => undefined,
    defaultChannel: 'inline',
    isolation: { resolveGuest: pool.resolveGuest, maxTimeoutSeconds: 10, defaultTimeoutSeconds: 5 },
    scripts,
  })
  return {
    manager,
    async cleanup() {
      await manager.dispose()
      await pool.dispose()
      await handle.dispose?.()
      rmSync(base, { recursive: true, force: true })
    },
  }
}
