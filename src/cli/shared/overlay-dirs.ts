import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { HelpItem } from './help-text.js'
import { UsageError } from './parse-args.js'

/** The help item every command that builds a source shows for `--overlays`. */
export const OVERLAYS_HELP: HelpItem = {
  term: '--overlays DIR',
  text: "deployer sidecars: DIR/<skill-id>/skillhost.yaml declares a skill's tools (repeatable; the first DIR holding one wins)",
}

/**
 * The `--overlays DIR` values (repeatable, in order) as absolute paths; each
 * must be a directory, so a typo is a usage error rather than a silently
 * missing sidecar.
 */
export function overlayDirs(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((value) => {
    const dir = resolve(value)
    let isDir = false
    try {
      isDir = statSync(dir).isDirectory()
    } catch {
      // reported below
    }
    if (!isDir) throw new UsageError(`--overlays ${value} is not a directory`)
    return dir
  })
}
