import { readFileSync } from 'node:fs'

/** skillhost's own version from its package.json (`--version`, serve's serverInfo); '0.0.0' when unreadable. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as {
      version?: unknown
    }
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  } catch {
    return '0.0.0'
  }
}
