import { SkillHostError } from '../common/errors.js'
import { fileType } from '../common/file-type.js'
import { normalizeSkillPath } from '../skill-model/skill-path.js'
import type { SkillRef, SkillSource } from '../sources/types.js'
import type { SkillFileContent, SkillFileInfo, SkillFilePage } from './types.js'

/** How many files a load result lists before it says how to page on. */
export const LOAD_RESULT_FILES = 200

/** The most characters of paths a load result lists; a page of long paths stops before it. */
export const LOAD_RESULT_FILES_CHARS = 16_000

/**
 * The path that names every file of a skill in `read_skill_file` and in
 * `SkillManager.skillFiles({ under })`: the skill folder itself.
 */
export const SKILL_ROOT_PATH = '.'

type Reader = (path: string) => Promise<Uint8Array>

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

/**
 * The files one loaded version of a skill ships (every file but SKILL.md),
 * indexed once at load: sorted paths with their sizes, and a reader bound to
 * the source's look at the skill. Bytes only ever come from the source (for a
 * source with `snapshot`, checked against that scan: a file swapped or changed
 * since is `E_SKILL_SOURCE_FAILED`), never from a host path.
 */
export class SkillFiles {
  readonly skillId: string
  readonly #paths: readonly string[]
  readonly #sizes: ReadonlyMap<string, number>
  readonly #read: Reader

  constructor(skillId: string, entries: readonly SkillFileInfo[], read: Reader) {
    this.skillId = skillId
    const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    this.#paths = sorted.map((e) => e.path)
    this.#sizes = new Map(sorted.map((e) => [e.path, e.size]))
    this.#read = read
  }

  /** No files at all: what a record holds until its files are indexed. */
  static empty(skillId: string): SkillFiles {
    return new SkillFiles(skillId, [], () => Promise.resolve(new Uint8Array()))
  }

  /** How many files the skill ships. */
  get total(): number {
    return this.#paths.length
  }

  /** True when `path` (normalized) is one of the files. */
  has(path: string): boolean {
    return this.#sizes.has(path)
  }

  /**
   * The normalized folder `under` names when it holds files, `''` for the
   * skill root (`.`), undefined otherwise. Throws `E_SKILL_SOURCE_PATH_REJECTED`
   * for a path that could leave the skill.
   */
  folder(under: string): string | undefined {
    if (under === SKILL_ROOT_PATH || under === './') return ''
    const dir = `${normalizeSkillPath(under)}/`
    const first = this.#firstAtOrAfter(dir)
    return this.#paths[first]?.startsWith(dir) ? dir : undefined
  }

  /**
   * Files below `folder` (as `folder` returns it), in path order, from
   * `offset`, at most `limit` of them, with the count below `folder`.
   */
  page(folder: string, offset: number, limit: number): SkillFilePage {
    let from = 0
    let to = this.#paths.length
    if (folder !== '') {
      from = this.#firstAtOrAfter(folder)
      // Every path starting with `folder` sorts before `folder` with its last '/' bumped to '0'.
      to = this.#firstAtOrAfter(`${folder.slice(0, -1)}0`)
    }
    const total = to - from
    const start = from + Math.min(offset, total)
    const end = Math.min(to, start + limit)
    const files = this.#paths
      .slice(start, end)
      .map((path) => ({ path, size: this.#sizes.get(path) as number }))
    return { files, total }
  }

  /**
   * The bytes and type of one file. `E_SKILL_SOURCE_PATH_REJECTED` for a path
   * that could leave the skill, `E_SKILL_NOT_FOUND` for one it does not ship.
   */
  async read(path: string): Promise<SkillFileContent> {
    const rel = normalizeSkillPath(path)
    const size = this.#sizes.get(rel)
    if (size === undefined) throw this.notFound(rel)
    const bytes = await this.#read(rel)
    return { path: rel, size: bytes.byteLength, mimeType: fileType(rel, bytes).mediaType, bytes }
  }

  /** The error for a path the skill does not ship; says how to see what it does. */
  notFound(rel: string): SkillHostError {
    const shown = JSON.stringify(rel.length > 120 ? `${rel.slice(0, 120)}…` : rel)
    const body =
      rel === 'SKILL.md'
        ? " SKILL.md's body came with load_skill (inline, or as a handle read with the artifact_* tools)."
        : ''
    return new SkillHostError(
      'E_SKILL_NOT_FOUND',
      `Skill '${this.skillId}' ships no file or folder ${shown}.${body} read_skill_file with path '${SKILL_ROOT_PATH}' lists its files.`,
      { data: { skill: this.skillId, path: rel.slice(0, 1024) } },
    )
  }

  #firstAtOrAfter(key: string): number {
    let lo = 0
    let hi = this.#paths.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.#paths[mid] as string) < key) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

/**
 * Indexes the files `source` ships for `ref`: from one `snapshot` when the
 * source has one (sizes from the snapshot, or `stat` when it gives none),
 * else from `list` and `stat`, reading through `source.read`. A source with
 * neither ships no files besides its body.
 */
export async function indexSkillFiles(
  source: SkillSource,
  ref: SkillRef,
  signal: AbortSignal,
): Promise<SkillFiles> {
  let paths: readonly string[]
  let read: Reader
  let sizeOf: (path: string) => number | undefined = () => undefined
  if (source.snapshot !== undefined) {
    const snap = await source.snapshot(ref, { signal })
    paths = snap.paths
    read = (path) => snap.read(path)
    if (snap.size) sizeOf = (path) => snap.size?.(path)
  } else {
    paths = source.list === undefined ? [] : await source.list(ref)
    // Reads outlive the load's turn, so they do not take its signal.
    read = async (path) => readAll(await source.read(ref, path))
  }
  const entries: SkillFileInfo[] = []
  for (const path of paths) {
    signal.throwIfAborted()
    const size = sizeOf(path) ?? (await source.stat(ref, path)).size
    entries.push({ path, size })
  }
  return new SkillFiles(ref.id, entries, read)
}
