import { isAbsolute, relative, resolve } from 'node:path'

/** Where skillhost keeps its own state, as a tier-3 configuration names it. */
export interface OwnFolderSources {
  readonly workspace: { readonly skillsDir?: string; readonly scratchDir?: string }
  readonly sessionWorkspace?: { readonly dir?: string }
  readonly translator: { readonly hiddenHostPaths?: readonly string[] }
  readonly provision?: { readonly cacheDir: string }
  /** The deployer's own: `serve`'s state folder (spools, sessions), lockfiles. */
  readonly ownFolders?: readonly string[]
}

/**
 * The one list of skillhost's own folders: skill copies, scratch folders,
 * the session workspace, the sandbox base (which holds every other
 * session's private workspace), the environment cache, and what the
 * deployer adds (`ownFolders`: state, spool, lockfiles). No permission grant
 * reaches one of them, whatever the policy says (`overlapsOwnFolder`).
 */
export function skillhostOwnFolders(config: OwnFolderSources): string[] {
  const all = [
    config.workspace.skillsDir,
    config.workspace.scratchDir,
    config.sessionWorkspace?.dir,
    ...(config.translator.hiddenHostPaths ?? []),
    config.provision?.cacheDir,
    ...(config.ownFolders ?? []),
  ]
  return [...new Set(all.filter((d): d is string => typeof d === 'string' && isAbsolute(d)))]
}

function within(child: string, parent: string): boolean {
  const rel = relative(resolve(parent), resolve(child))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** True when `path` lies inside one of `own` or holds one (either way a grant would reach it). */
export function overlapsOwnFolder(path: string, own: readonly string[]): boolean {
  return own.some((d) => within(path, d) || within(d, path))
}
