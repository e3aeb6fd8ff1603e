import { lstatSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { escapeLine, quoteName } from '../../common/index.js'
import { cliDefaultRoots } from '../shared/cli-roots.js'
import { resolveCatalog } from '../shared/resolve-catalog.js'

/** The skill folder `run` uses, and how its argument named it. */
export interface RunSkillDir {
  /** The folder, absolute (a missing path stays as given, for the root rule to name). */
  readonly dir: string
  /** Set when the argument was taken as a skill id: the id and where it was looked for. */
  readonly byId?: {
    readonly id: string
    readonly found: boolean
    /** The default roots searched, in precedence order. */
    readonly roots: readonly string[]
    /** Folders of later copies of the id that the found one shadows (list's rule). */
    readonly shadowed: readonly string[]
  }
}

/** An argument that may be an id: one name, not `.` or `..`, no path separator. */
function idShaped(arg: string): boolean {
  return arg !== '' && arg !== '.' && arg !== '..' && !/[/\\]/.test(arg)
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/**
 * `run`'s first argument as a skill folder. A path that exists is the folder
 * (a path wins over an id, so a folder named like an id is never mistaken);
 * otherwise an argument shaped like an id is looked up in the roots `list`
 * searches by default, and the copy `list` shows active wins (an earlier root
 * wins an id collision). Anything else stays a path, for the root rule to
 * report as missing.
 */
export async function runSkillDir(arg: string, cwd = process.cwd()): Promise<RunSkillDir> {
  const dir = resolve(cwd, arg)
  if (exists(dir) || !idShaped(arg)) return { dir }
  const roots = cliDefaultRoots({ cwd })
  const catalog = await resolveCatalog(roots)
  const rows = catalog.rows.filter((r) => r.id === arg)
  const active = rows.find((r) => r.status === 'active')
  const shadowed = rows.filter((r) => r !== active).map((r) => r.path)
  const byId = { id: arg, found: active !== undefined, roots, shadowed }
  return { dir: active?.path ?? dir, byId }
}

/** A host folder for a stderr line: relative to the working directory when inside it. */
function shown(path: string): string {
  const near = relative(process.cwd(), path) || '.'
  return escapeLine(near.startsWith('..') ? path : near)
}

/**
 * What `run` says about an argument taken as an id: which folder it found
 * (and the copies it shadows), or where it looked without finding it.
 */
export function runSkillDirLine(found: RunSkillDir): string | undefined {
  const { byId } = found
  if (byId === undefined) return undefined
  if (!byId.found) {
    const where = byId.roots.length === 0 ? 'none exist' : byId.roots.map(shown).join(', ')
    return `no skill has the id ${quoteName(byId.id)} in the roots list searches by default (${where})`
  }
  const others =
    byId.shadowed.length === 0
      ? ''
      : `; it shadows ${byId.shadowed.map(shown).join(', ')} (an earlier root wins, as list shows)`
  return `skill ${quoteName(byId.id)} is ${shown(found.dir)}${others}`
}
