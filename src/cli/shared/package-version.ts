import { readFileSync } from 'node:fs'

/** skillhost's own package.json, parsed; an empty object when unreadable. */
export function packageJson(): {
  readonly version?: unknown
  readonly engines?: { node?: unknown }
} {
  try {
    return JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
  } catch {
    return {}
  }
}

/** skillhost's own version from its package.json (`--version`, serve's serverInfo); '0.0.0' when unreadable. */
export function packageVersion(): string {
  const { version } = packageJson()
  return typeof version === 'string' ? version : '0.0.0'
}
