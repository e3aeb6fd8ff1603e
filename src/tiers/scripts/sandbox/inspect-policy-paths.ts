import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import type { SandboxPolicy } from '../policy/policy.js'
import { normalizeAbsolutePath } from '../policy/policy.js'
import type { HostPathFact } from './bwrap-args.js'

function inspect(path: string): HostPathFact {
  try {
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) {
      return { kind: 'symlink', target: readlinkSync(path), resolved: realpathSync(path) }
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
 * Synchronous on purpose: a policy holds a handful of local paths, and one
 * `lstat` each costs microseconds, while as many thread-pool round trips cost
 * a few milliseconds of every sandboxed call on a busy event loop.
 */
export async function inspectPolicyPaths(
  policy: SandboxPolicy,
): Promise<Map<string, HostPathFact>> {
  const fs = policy.filesystem
  const paths = [...new Set([...fs.allowRead, ...fs.allowWrite, ...fs.denyRead, ...fs.denyWrite])]
  const facts = new Map<string, HostPathFact>()
  for (const p of paths) {
    const normalized = normalizeAbsolutePath(p)
    if (normalized !== undefined && !facts.has(normalized))
      facts.set(normalized, inspect(normalized))
  }
  return facts
}
