import { lstatSync, readdirSync, readlinkSync } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { isPathInside } from '../policy/policy.js'
import {
  folderIdentity,
  recordsWalks,
  rememberedLinks,
  rememberWalk,
  type WalkRecord,
} from './host-link-cache.js'

/**
 * Where a link out of the granted system folders may lead for its target
 * to be granted too: host configuration (`/etc`: Debian's alternatives,
 * `/etc/locale.alias`, a JDK's `conf`) and add-on software (`/opt`). A link
 * anywhere else (`/dev`, `/proc`, a home, `/tmp`, `/run`, `/var`) is left
 * dangling inside, as it was: those hold per-host or per-user state.
 */
export const LINK_TARGET_ROOTS: readonly string[] = ['/etc', '/opt']

/**
 * Files never granted, though public: `/etc/environment` is the host's
 * environment (proxy settings, sometimes with credentials), and a script's
 * environment holds nothing of the host's (docs/security.md).
 */
export const LINK_TARGETS_NEVER: readonly string[] = ['/etc/environment']

/** Bounds of one walk: entries read, links followed per chain, paths granted. */
export const LINK_CLOSURE_LIMITS = { entries: 1_000_000, hops: 40, paths: 4096 } as const

/** What decides which host paths a link's target may be granted from. */
export interface LinkClosureInput {
  /** The granted system folders to walk (only those that are real directories are walked). */
  readonly roots: readonly string[]
  /** Every path the sandbox already shows at its host path: a hop inside one needs nothing. */
  readonly visible: readonly string[]
  /** Never granted, nor anything inside or holding one (the session's deny entries, the synthetic `/etc` files). */
  readonly never: readonly string[]
}

/**
 * The host paths to grant read-only so that every symlink in the granted
 * system folders resolves inside the sandbox as it does outside: each link
 * is followed hop by hop out of `roots`, and a hop outside them is a
 * candidate when it lies under `LINK_TARGET_ROOTS`, is owned by root and
 * readable by everyone (a directory also searchable). A hop that is a link
 * in a folder of links only (`/etc/alternatives`) gives that folder, one
 * mount instead of hundreds, and so do two or more candidates in one folder.
 * Of the candidates, those `visible` already shows and those touching
 * `never` are dropped. The set comes from the host's folders alone, never
 * from a skill; the walk is bounded by `LINK_CLOSURE_LIMITS` and stops
 * (granting what it found) past them. The walk and the candidates are
 * computed once per process for the same roots: the folders are the system's.
 */
export async function hostLinkClosure(input: LinkClosureInput): Promise<string[]> {
  const found = await linkCandidates(input.roots)
  return found.filter(
    (p) => !input.visible.some((v) => isPathInside(p, v)) && !touchesNever(p, input.never),
  )
}

const candidates = new Map<string, Promise<string[]>>()
const walks = new Map<string, Promise<string[]>>()

function linkCandidates(roots: readonly string[]): Promise<string[]> {
  const key = JSON.stringify(roots)
  let found = candidates.get(key)
  if (found === undefined) {
    found = closure(roots)
    candidates.set(key, found)
  }
  return found
}

/**
 * Every symlink in `roots` whose target lies outside them (the expensive
 * part of `hostLinkClosure`: about 140,000 entries under a desktop `/usr`
 * for a few hundred such links; a link into the roots needs no grant, and a
 * chain through one is followed from its own outward link), walked once per process (or
 * taken from an earlier process's walk of unchanged folders, when
 * `rememberHostLinks` is on: `host-link-cache.ts`): a command starts it
 * early (`createScriptSandbox` does, first thing) so it runs beside the
 * rest of its set-up. Never rejects.
 */
export function hostSystemLinks(roots: readonly string[]): Promise<string[]> {
  const key = JSON.stringify(roots)
  let found = walks.get(key)
  if (found === undefined) {
    found = walkRoots(roots).catch(() => [])
    walks.set(key, found)
  }
  return found
}

/**
 * The links of `roots`: remembered from an earlier process when nothing
 * they were read from has changed (`host-link-cache.ts`, root only), else
 * walked, and the walk remembered when it finished within its budget.
 */
async function walkRoots(roots: readonly string[]): Promise<string[]> {
  const remembered = rememberedLinks(roots)
  if (remembered !== undefined) return remembered
  const startedMs = Date.now()
  const { links, record } = await walkSystemFolders(roots, recordsWalks())
  if (record !== undefined) rememberWalk(record, startedMs)
  return links
}

/**
 * Walks `roots` for their symlinks that lead out of them (`outwardHop`;
 * bounded by `LINK_CLOSURE_LIMITS`), and
 * with `record` also gives the walk's record for `rememberWalk`: the
 * identity of each root and of each folder read, each taken before the
 * folder was read. No record for a walk cut short by its budget.
 */
export async function walkSystemFolders(
  roots: readonly string[],
  record: boolean,
): Promise<{ links: string[]; record: WalkRecord | undefined }> {
  const links: string[] = []
  const budget = { entries: LINK_CLOSURE_LIMITS.entries }
  const dirs = record ? ([] as [string, string][]) : undefined
  const rootIds = roots.map((r) => [r, folderIdentity(r)] as const)
  for (const root of roots) {
    const st = tryFs(() => lstatSync(root))
    if (st?.isDirectory()) await collectLinks(root, roots, links, budget, dirs)
  }
  const whole = dirs !== undefined && budget.entries >= 0
  return { links, record: whole ? { roots: rootIds, dirs, links } : undefined }
}

async function closure(roots: readonly string[]): Promise<string[]> {
  const links = await hostSystemLinks(roots)
  const granted = new Set<string>()
  for (const link of links) {
    await followLink(link, roots, granted)
    if (granted.size >= LINK_CLOSURE_LIMITS.paths) break
  }
  // A path inside another granted folder needs no mount of its own.
  const all = await foldersOfSiblings([...granted])
  return all.filter((p) => !all.some((q) => q !== p && isPathInside(p, q))).sort()
}

/**
 * `paths` with two or more granted in one public folder (a JDK's 24 links
 * into `/etc/java-17-openjdk`) replaced by that folder: one mount instead of
 * many. Never a `LINK_TARGET_ROOTS` folder itself, nor one holding `LINK_TARGETS_NEVER`.
 */
async function foldersOfSiblings(paths: string[]): Promise<string[]> {
  const byFolder = new Map<string, number>()
  for (const p of paths) byFolder.set(dirname(p), (byFolder.get(dirname(p)) ?? 0) + 1)
  const out = new Set<string>()
  for (const p of paths) {
    const folder = dirname(p)
    const shared =
      (byFolder.get(folder) ?? 0) >= 2 &&
      !LINK_TARGET_ROOTS.includes(folder) &&
      !touchesNever(folder, []) &&
      (await publicSystemPath(folder))
    out.add(shared ? folder : p)
  }
  return [...out]
}

/**
 * Entries read between two yields of the walk to the event loop: the walk
 * runs beside a command's other set-up and a server's requests, so it never
 * holds the loop for more than one slice.
 */
const WALK_SLICE_ENTRIES = 4096

/**
 * Every symlink under `root` (real directories only; a linked folder is a
 * link, not walked), and into `dirs` each folder read with its identity. Each folder is read synchronously, in slices of
 * `WALK_SLICE_ENTRIES`: one readdir per folder on this thread costs a third
 * of the CPU of as many thread-pool trips and their promises (0.5 s against
 * 1.6 s for the 144,000 entries of a Debian /usr, issue 39 item 3), and every
 * `skillhost run` and test file that sets up a sandbox pays it once.
 */
async function collectLinks(
  root: string,
  roots: readonly string[],
  out: string[],
  budget: { entries: number },
  dirs: [string, string][] | undefined,
): Promise<void> {
  const pending = [root]
  let slice = 0
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const folder = dir
    // Who the folder is before it is read: a change while reading shows next time.
    dirs?.push([folder, folderIdentity(folder)])
    const entries = tryFs(() => readdirSync(folder, { withFileTypes: true })) ?? []
    for (const e of entries) {
      if (--budget.entries < 0) return
      if (e.isSymbolicLink()) {
        const link = join(folder, e.name)
        if (outwardHop(link, roots) !== undefined) out.push(link)
      } else if (e.isDirectory()) pending.push(join(folder, e.name))
    }
    slice += entries.length
    if (slice >= WALK_SLICE_ENTRIES) {
      slice = 0
      await new Promise((r) => setImmediate(r))
    }
  }
}

/**
 * Where `link` leads in one hop, when that is outside `roots`; undefined
 * when it leads back inside them or cannot be read. Which links the walk
 * keeps and where `followLink` goes next are the same rule. Synchronous:
 * thousands of readlinks cost milliseconds, as many thread-pool trips a second.
 */
function outwardHop(link: string, roots: readonly string[]): string | undefined {
  const target = tryFs(() => readlinkSync(link))
  if (target === undefined) return undefined
  const next = resolve(dirname(link), target)
  return roots.some((v) => isPathInside(next, v)) ? undefined : next
}

/** Follows one link until it lands back in `roots`, taking each outside hop as a candidate. */
async function followLink(link: string, roots: readonly string[], granted: Set<string>) {
  let current = link
  for (let hop = 0; hop < LINK_CLOSURE_LIMITS.hops; hop++) {
    const next = outwardHop(current, roots)
    if (next === undefined) return
    const grant = await grantFor(next)
    if (grant === undefined) return
    granted.add(grant.path)
    if (!grant.link) return
    current = next
  }
}

/** The path to grant for an outside hop `path`, and whether the hop is itself a link; undefined when refused. */
function tryFs<T>(f: () => T): T | undefined {
  try {
    return f()
  } catch {
    return undefined
  }
}

async function grantFor(path: string): Promise<{ path: string; link: boolean } | undefined> {
  if (!LINK_TARGET_ROOTS.some((r) => path !== r && isPathInside(path, r))) return undefined
  if (touchesNever(path, [])) return undefined
  const st = tryFs(() => lstatSync(path))
  if (st === undefined) return undefined
  if (st.isSymbolicLink()) {
    if (st.uid !== 0) return undefined
    const folder = dirname(path)
    const onlyLinks = await isLinkFolder(folder)
    const fine = onlyLinks && (await publicSystemPath(folder)) && !touchesNever(folder, [])
    return { path: fine ? folder : path, link: true }
  }
  return (await publicSystemPath(path)) ? { path, link: false } : undefined
}

function touchesNever(path: string, never: readonly string[]): boolean {
  return [...never, ...LINK_TARGETS_NEVER].some(
    (n) => isPathInside(path, n) || isPathInside(n, path),
  )
}

/** A root-owned regular file readable by all, or a root-owned directory of such files (`publicEntry`). */
async function publicSystemPath(path: string): Promise<boolean> {
  return asked(path, 'public', () => publicEntry(path, { entries: LINK_CLOSURE_LIMITS.paths }))
}

const answers = new Map<string, Promise<boolean>>()

/** One answer per folder and question per process: 388 alternatives share one folder. */
function asked(path: string, question: string, ask: () => Promise<boolean>): Promise<boolean> {
  const key = `${question}\0${path}`
  let answer = answers.get(key)
  if (answer === undefined) {
    answer = ask()
    answers.set(key, answer)
  }
  return answer
}

/**
 * A root-owned file readable by all, a symlink (judged where it leads), or
 * a root-owned directory searchable by all whose every entry is public too:
 * a granted folder shows nothing a group could read that others cannot
 * (`/etc/ssl/private`'s keys for `ssl-cert`). Past the budget: not public.
 */
async function publicEntry(path: string, budget: { entries: number }): Promise<boolean> {
  if (--budget.entries < 0) return false
  const st = await lstat(path).catch(() => undefined)
  if (st === undefined) return false
  if (st.isSymbolicLink()) return true
  if (st.uid !== 0) return false
  if (st.isFile()) return (st.mode & 0o004) !== 0
  if (!st.isDirectory() || (st.mode & 0o005) !== 0o005) return false
  const entries = await readdir(path).catch(() => undefined)
  if (entries === undefined) return false
  for (const name of entries) if (!(await publicEntry(join(path, name), budget))) return false
  return true
}

/**
 * Whether `dir` is a folder of links: symlinks and plain files (Debian's
 * `README`) only, no subfolder (a bounded look: at most `paths` entries).
 */
function isLinkFolder(dir: string): Promise<boolean> {
  return asked(dir, 'links', async () => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined)
    if (entries === undefined || entries.length > LINK_CLOSURE_LIMITS.paths) return false
    return entries.every((e) => e.isSymbolicLink() || e.isFile())
  })
}
