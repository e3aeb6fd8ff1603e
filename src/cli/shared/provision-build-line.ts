import type { ProvisionBuild } from '../../tiers/scripts/index.js'
import { plural } from './plural.js'

/** How many requirement texts a line names before it says how many more there are. */
const NAMED = 6

/**
 * One line for an environment build (`ProvisionOptions.onBuild`), as `serve`
 * logs it and `run` prints it on stderr: what is being installed, and how
 * long it took once it ends; a failure given with its cause says it and
 * where pip's whole log is (the operator's only view of it under serve).
 */
export function provisionBuildLine(event: ProvisionBuild): string {
  const shown = event.requirements.slice(0, NAMED).join(', ')
  const more = event.requirements.length - NAMED
  const what = `${shown}${more > 0 ? ` and ${more} more` : ''}`
  const took = event.ms === undefined ? '' : ` in ${(event.ms / 1000).toFixed(1)} s`
  if (event.phase === 'started')
    return `env: building a python environment for ${what} (${plural(event.requirements.length, 'requirement')}); calls that need it wait`
  if (event.phase === 'built') return `env: built the environment for ${what}${took}`
  if (event.failure === undefined)
    return `env: the environment for ${what} failed to build${took}; the call says why`
  const log = event.failure.log === undefined ? '' : `; pip's full log: ${event.failure.log}`
  return `env: the environment for ${what} failed to build${took}: ${event.failure.cause}${log}`
}
