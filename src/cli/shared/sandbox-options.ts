import type { SkillLock } from '../../sources/index.js'
import {
  lockedProvision,
  type ProvisionBuild,
  type ScriptSandboxOptions,
  scriptInterpreters,
} from '../../tiers/scripts/index.js'
import { provisionBuildLine } from './provision-build-line.js'
import type { SandboxFlags } from './sandbox-flags.js'

/**
 * The `createScriptSandbox` options the flags ask for: the default
 * allow-list plus the flags. Under a lockfile (`--locked FILE`) provisioning
 * builds only the environments it pins (`ProvisionOptions.locked`). With
 * `say`, each environment build is told in one line (`provisionBuildLine`);
 * a failure's cause and log only when `sayWhy` (run reports its error itself).
 */
export function sandboxOptionsFrom(
  flags: SandboxFlags,
  lock?: SkillLock,
  say?: (line: string) => void,
  sayWhy = true,
): ScriptSandboxOptions {
  const locked =
    flags.provision === undefined || lock === undefined
      ? flags.provision
      : { ...flags.provision, ...lockedProvision(lock) }
  const provision =
    locked === undefined || say === undefined
      ? locked
      : {
          ...locked,
          onBuild: ({ failure, ...event }: ProvisionBuild) =>
            say(provisionBuildLine(sayWhy && failure ? { ...event, failure } : event)),
        }
  return {
    interpreters: scriptInterpreters(flags.interpreters),
    ...(flags.readPaths.length > 0 ? { readPaths: flags.readPaths } : {}),
    ...(provision === undefined ? {} : { provision }),
  }
}
