import { fileURLToPath } from 'node:url'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createQuickJsGuest } from '../../src/tiers/isolated/index.js'
import { createScriptSandbox } from '../../src/tiers/scripts/index.js'

/** The bundled example skills. */
export const EXAMPLES = fileURLToPath(new URL('../../examples/skills', import.meta.url))

/** A manager over examples/skills with all three tiers on: module imports, QuickJS guests, bubblewrap scripts. */
export async function makeTierRig(): Promise<{ manager: SkillManager; cleanup(): Promise<void> }> {
  const pool = createQuickJsGuest({ poolSize: 1 })
  const sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
  const manager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: [EXAMPLES], importModules: true })],
    gate: async () => undefined,
    defaultChannel: 'inline',
    // Generous: the calls must succeed however loaded the machine is.
    isolation: {
      resolveGuest: pool.resolveGuest,
      maxTimeoutSeconds: 20,
      defaultTimeoutSeconds: 20,
    },
    scripts: sandbox.config,
  })
  return {
    manager,
    async cleanup() {
      await manager.dispose()
      await pool.dispose()
      await sandbox.dispose()
    },
  }
}
