import { createHash } from 'node:crypto'
import { realpath } from 'node:fs/promises'
import module, { createRequire } from 'node:module'
import { sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { SkillHostError } from '../../common/errors.js'
import type { SkillFolderScan } from '../discovery/scan-skill-folder.js'
import { fileSha256 } from './skill-digest.js'

/**
 * Why a locked skill's module graph was refused (`E_SKILL_NOT_PINNED`'s
 * `data.reason`): a file of the folder the digest does not cover
 * (`node_modules/`), a file whose bytes are not the pinned ones, a file
 * outside the folder that is not the host's own package, or a runtime (or a
 * native addon) whose loading cannot be checked.
 */
export type ImportRefusal = 'not-pinned' | 'changed' | 'leaves-folder' | 'runtime-cannot-check'

/** What a locked skill's module graph is held to: the files of a scan whose digest the lock pins. */
export interface PinnedModule {
  /** The skill's id, for messages. */
  readonly id: string
  /** The skill folder as discovery found it. */
  readonly dir: string
  /** The scan whose files `files` hashes. */
  readonly scan: SkillFolderScan
  /** The pinned digest, which these files' bytes make. */
  readonly digest: string
  /** Each scan path's SHA-256 (base64), from the reads whose digest matched the lock. */
  readonly files: ReadonlyMap<string, string>
}

// Node's synchronous in-thread module hooks (22.15+); @types/node 20 does not know them.
interface Resolved {
  url: string
  format?: string | null
}
interface Loaded {
  format?: string | null
  source?: string | ArrayBuffer | NodeJS.TypedArray | null
}
interface Context {
  parentURL?: string
}
type NextResolve = (specifier: string, context?: Context) => Resolved
type NextLoad = (url: string, context?: object) => Loaded
type RegisterHooks = (hooks: {
  resolve: (specifier: string, context: Context, next: NextResolve) => Resolved
  load: (url: string, context: object, next: NextLoad) => Loaded
}) => unknown

/** One locked folder at one pinned version: its real path and its files by real relative path. */
interface Graph {
  readonly id: string
  /** The folder's real path with a trailing separator. */
  readonly prefix: string
  readonly token: string
  /** Real relative path → SHA-256; '' where two scan paths of one file disagreed. */
  readonly files: ReadonlyMap<string, string>
}

/** The query parameter that keys a locked graph's modules apart from any other copy in Node's cache. */
const PARAM = 'skillhost-pin'

/** Where the host resolves its own packages from: a bare specifier must resolve here to the same file. */
const HOST_URL = import.meta.url

const byToken = new Map<string, Graph>()
/** The latest pin per folder: for loads without a token (`require`, a host import of the folder). */
const byRoot = new Map<string, Graph>()
let installed = false

const WHY: Record<ImportRefusal, string> = {
  'not-pinned':
    'imports a file of its folder that the lock does not cover (files under node_modules/ are never pinned); ship the code outside node_modules/ and pin the skill again with skillhost lock',
  changed:
    'imports a file that changed since it was pinned; review the change and pin the skill again with skillhost lock',
  'leaves-folder':
    "imports code from outside its folder that is not one of the host's own packages; ship it inside the skill folder and pin the skill again with skillhost lock",
  'runtime-cannot-check':
    'cannot be checked against the lock on this Node.js (module.registerHooks needs Node.js 22.15 or newer); run the host on a newer Node.js or serve the skill without importModules',
}

const ADDON =
  'loads a native addon, whose bytes are read by the system loader and cannot be checked against the lock; serve the skill without importModules'

function refused(
  id: string,
  reason: ImportRefusal,
  path?: string,
  why = WHY[reason],
): SkillHostError {
  return new SkillHostError(
    'E_SKILL_NOT_PINNED',
    `Skill "${id}" is locked and its module ${why}; the module is not imported.`,
    { data: { id, reason, ...(path !== undefined && { path }) } },
  )
}

function filePath(url: string): string | undefined {
  if (!url.startsWith('file:')) return undefined
  try {
    return fileURLToPath(url)
  } catch {
    return undefined
  }
}

function tokenOf(url: string): string | undefined {
  const q = url.indexOf('?')
  if (q < 0) return undefined
  const hash = url.indexOf('#', q)
  return new URLSearchParams(url.slice(q + 1, hash < 0 ? undefined : hash)).get(PARAM) ?? undefined
}

/** The pin a file is held to: its URL's token's, else the latest pin of the deepest locked folder holding it. */
function graphOf(url: string, path: string): Graph | undefined {
  const token = tokenOf(url)
  const tokened = token === undefined ? undefined : byToken.get(token)
  if (tokened && path.startsWith(tokened.prefix)) return tokened
  // Each ancestor folder, deepest first: a map lookup per level, however many folders are locked.
  for (let end = path.lastIndexOf(sep); end > 0; end = path.lastIndexOf(sep, end - 1)) {
    const graph = byRoot.get(path.slice(0, end + 1))
    if (graph) return graph
  }
  return undefined
}

function withToken(url: string, token: string): string {
  const u = new URL(url)
  u.searchParams.set(PARAM, token)
  return u.href
}

/** A specifier Node looks up as a package (not a path, not a URL, not a `#` import). */
function isBare(specifier: string): boolean {
  return !/^(?:[./#]|[a-zA-Z][a-zA-Z\d+.-]*:)/.test(specifier)
}

/**
 * The resolve hook: an import made by a file of a locked folder stays in the
 * folder (then keyed by the pin's token), is a builtin, or is a bare
 * specifier resolving to the very file the host's own import of it would.
 */
function resolve(specifier: string, context: Context, next: NextResolve): Resolved {
  const resolved = next(specifier, context)
  const parentPath = context.parentURL === undefined ? undefined : filePath(context.parentURL)
  const graph = parentPath === undefined ? undefined : graphOf(context.parentURL!, parentPath)
  if (!graph || resolved.url.startsWith('node:')) return resolved
  const path = filePath(resolved.url)
  if (path?.startsWith(graph.prefix)) {
    const rel = path.slice(graph.prefix.length)
    // A native addon is read by dlopen, past any hook: its bytes cannot be checked.
    if (rel.endsWith('.node')) throw refused(graph.id, 'runtime-cannot-check', rel, ADDON)
    return { ...resolved, url: withToken(resolved.url, graph.token) }
  }
  if (path !== undefined && isBare(specifier)) {
    let host: string | undefined
    try {
      host = next(specifier, { ...context, parentURL: HOST_URL }).url
    } catch {
      host = undefined
    }
    if (host === resolved.url) return resolved
  }
  throw refused(graph.id, 'leaves-folder')
}

/**
 * The load hook: a file inside a locked folder runs only if the bytes Node
 * hands to V8 (the source returned here) hash to the pinned SHA-256 of that
 * file. Hashing the returned source, not a second read, leaves no window
 * between the check and what runs.
 */
function load(url: string, context: object, next: NextLoad): Loaded {
  const path = filePath(url)
  const graph = path === undefined ? undefined : graphOf(url, path)
  if (!graph) return next(url, context)
  const rel = path!.slice(graph.prefix.length)
  const pinned = graph.files.get(rel)
  if (pinned === undefined) throw refused(graph.id, 'not-pinned', rel)
  const loaded = next(url, context)
  const source = loaded.source
  if (source === undefined || source === null || loaded.format === 'addon')
    throw refused(graph.id, 'runtime-cannot-check', rel)
  const bytes =
    typeof source === 'string'
      ? source
      : source instanceof ArrayBuffer
        ? new Uint8Array(source)
        : new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
  if (fileSha256(bytes) !== pinned) throw refused(graph.id, 'changed', rel)
  return loaded
}

function install(): boolean {
  if (installed) return true
  const register = (module as unknown as { registerHooks?: RegisterHooks }).registerHooks
  if (typeof register !== 'function') return false
  register.call(module, { resolve, load })
  installed = true
  return true
}

/** The pinned files keyed by their path below the folder's real path (where Node's resolver puts them). */
function realFiles(pinned: PinnedModule, prefix: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const [rel, sha] of pinned.files) {
    const file = pinned.scan.files.get(rel)
    if (file === undefined) continue
    // A plain file lies at dir/rel (a scan never enters a symlinked folder);
    // a symlink inside the folder was scanned at its real target.
    const target = file.target
    const real =
      target === undefined
        ? rel
        : target.startsWith(prefix)
          ? target.slice(prefix.length)
          : undefined
    if (real === undefined) continue
    const had = files.get(real)
    files.set(real, had === undefined || had === sha ? sha : '')
  }
  return files
}

function register(pinned: PinnedModule, root: string, version: string): Graph {
  const token = createHash('sha256')
    .update(`${root}\0${pinned.digest}\0${version}`)
    .digest('base64url')
    .slice(0, 22)
  const prefix = root.endsWith(sep) ? root : root + sep
  let graph = byToken.get(token)
  if (!graph) {
    graph = { id: pinned.id, prefix, token, files: realFiles(pinned, prefix) }
    byToken.set(token, graph)
    // CommonJS is cached by file name, not URL: a copy of a file of this folder
    // that was required before it was locked must be loaded (and checked) again.
    const cache = createRequire(HOST_URL).cache
    for (const name of Object.keys(cache)) if (name.startsWith(prefix)) delete cache[name]
  }
  byRoot.set(prefix, graph)
  return graph
}

/**
 * The URL to import a locked skill's module from (`absPath`, a file of
 * `pinned.scan`), with Node's module hooks in place: from then on, every file
 * of the folder that the graph loads (by `import`, `import()` or `require`,
 * now or later) must hash to its pinned SHA-256, and any import leaving the
 * folder must be a builtin or resolve to the host's own copy of a package;
 * anything else is `E_SKILL_NOT_PINNED` with a `reason`. On a Node.js
 * without `module.registerHooks` nothing can be checked, so this refuses
 * (`runtime-cannot-check`) instead of importing unchecked code. Each
 * (folder, digest, `version`) gets its own token in the URLs of its graph,
 * so a copy of a file loaded before (unlocked, or at another version) is
 * never reused for it.
 */
export async function pinnedModuleUrl(
  absPath: string,
  version: string,
  pinned: PinnedModule,
): Promise<string> {
  if (!install()) throw refused(pinned.id, 'runtime-cannot-check')
  const graph = register(pinned, await realpath(pinned.dir), version)
  const url = new URL(pathToFileURL(absPath).href)
  url.searchParams.set('v', version)
  url.searchParams.set(PARAM, graph.token)
  return url.href
}
