import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  statSync,
} from 'node:fs'
import { chmod } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { isNeutralPath, mkdtempNeutral } from '../../src/tiers/scripts/config/neutral-temp.js'

// Tests must not depend on where the checkout lives: a clone under a 0700
// folder (`mktemp -d`) is out of reach of `nobody` and of the sandbox user, and
// a temporary folder's random letters can spell the host's name. These make
// what such a test needs in a place of its own, with the property it needs.

/**
 * A fresh folder under the temporary folder, drawn as the sandbox draws its
 * base (`mkdtempNeutral`): its random letters name neither the host nor the
 * user, so a test that sets `TMPDIR` to it knows the sandbox's base goes there.
 */
export async function neutralTempDir(prefix: string, mode = 0o755): Promise<string> {
  const dir = await mkdtempNeutral(tmpdir(), prefix)
  if (!isNeutralPath(dir))
    throw new Error(`the temporary folder ${tmpdir()} names the host or user`)
  await chmod(dir, mode)
  return dir
}

/**
 * A `bin` folder anyone can reach, holding this process's `node` (hard-linked,
 * or copied across file systems), in a fresh 0755 folder of the temporary
 * folder: what a test puts on `PATH` when the sandbox must take the suite's
 * own node, wherever the checkout that installed it lives. The caller removes
 * `dirname(bin)`.
 */
export function reachableNodeBin(): string {
  const dir = mkdtempSync(join(tmpdir(), 'skillhost-node-'))
  chmodSync(dir, 0o755)
  const bin = join(dir, 'bin')
  mkdirSync(bin, { mode: 0o755 })
  const real = realpathSync(process.execPath)
  try {
    linkSync(real, join(bin, 'node'))
  } catch {
    copyFileSync(real, join(bin, 'node'))
    chmodSync(join(bin, 'node'), 0o755)
  }
  return bin
}

/** Whether every folder above `path`, and above its real path, lets anyone through (o+x). */
export function everyoneReaches(path: string): boolean {
  const open = (from: string): boolean => {
    for (let dir = dirname(from); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false
      if (dirname(dir) === dir) return true
    }
  }
  return open(path) && open(realpathSync(path))
}
