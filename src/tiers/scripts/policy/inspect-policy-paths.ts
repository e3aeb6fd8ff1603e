import { lstat, readlink, realpath } from 'node:fs/promises'
import type { HostPathFact } from '../sandbox/bwrap-args.js'
import type { SandboxPolicy } from './policy.js'
import { normalizeAbsolutePath } from './policy.js'

async function inspect(path: string): Promise<HostPathFact> {
  try {
    const stat = await lstat(path)
    if (stat.isSymbolicLink()) {
      return { kind: 'symlink', target: await readlink(path), resolved: await realpath(path) }
    }
    return { kind: stat.isDirectory() ? 'dir' : 'file' }
  } catch {
    // Missing, dangling or unreadable: nothing to bind, nothing to mask.
    return { kind: 'missing' }
  }
}

/**
 * What the host holds at every path of `policy` (directory, file, symlink
 * with its target, or nothing), keyed by normalized path. bwrap needs this to
 * choose between a bind, a symlink and a mask, and to skip absent entries.
 */
export async function inspectPolicyPaths(
  policy: SandboxPolicy,
): Promise<Map<string, HostPathFact>> {
  const fs = policy.filesystem
  const paths = [...new Set([...fs.allowRead, ...fs.allowWrite, ...fs.denyRead, ...fs.denyWrite])]
  const facts = new Map<string, HostPathFact>()
  await Promise.all(
    paths.map(async (p) => {
      const normalized = normalizeAbsolutePath(p)
      if (normalized !== undefined) facts.set(normalized, await inspect(normalized))
    }),
  )
  return facts
}
