import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

/**
 * The folder the CLI keeps its caches in: `$XDG_CACHE_HOME/skillhost` when
 * that is an absolute path, else `~/.cache/skillhost` (the env cache's
 * `envs`, the python probes' `python-probes`).
 */
export function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : join(homedir(), '.cache')
  return join(base, 'skillhost')
}
