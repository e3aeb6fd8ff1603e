import { SkillHostError } from '../../common/errors.js'
import { isSkillFileDigest, type SkillManifestFile } from '../reading/skill-manifest.js'
import { type LockedEnvironment, toLockedEnvironments } from './lock-environments.js'
import { isSkillDigest } from './skill-digest.js'

/**
 * The lockfile format this version writes: 2, which adds each skill's
 * `files` (path, `sha256:` digest, size: the MCP Skills Extension's format).
 * Version 1 lockfiles (no `files`) are still read.
 */
export const SKILL_LOCK_VERSION = 2

/** The lockfile versions read. */
export type SkillLockVersion = 1 | 2

/**
 * The largest lockfile read or parsed, in bytes (64 MiB: about 100,000
 * skills, or half a million files listed with their digests).
 */
export const MAX_SKILL_LOCK_BYTES = 64 * 1024 * 1024

/** The most files one lockfile entry may list. */
export const MAX_SKILL_LOCK_FILES = 100_000

const MAX_PATH_CHARS = 4096

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is rejected
const CONTROL = /[\u0000-\u001f\u007f]/

/** The most skills one lockfile may pin. */
export const MAX_SKILL_LOCK_ENTRIES = 200_000

const MAX_ID_CHARS = 1024
const MAX_SOURCE_CHARS = 4096

/** What a lockfile records for one skill. */
export interface SkillLockEntry {
  /** The content digest (`sha256-…`, see `skillDigestSteps`): every file's path and bytes. */
  readonly digest: string
  /** Where the skill was pinned from, for people reading the file; never checked. */
  readonly source: string
  /**
   * Version 2: every file (SKILL.md included) in path order, each with its
   * `sha256:` digest and size, hashed from the same reads as `digest`; what
   * an MCP Skills Extension manifest lists, so the two compare directly.
   */
  readonly files?: readonly SkillManifestFile[]
  /** The python environments its scripts' requirements resolved to (`skillhost env --lock`); optional. */
  readonly environments?: readonly LockedEnvironment[]
  /**
   * Version 2, for a skill in a Claude Code plugin: the content digest
   * (`skillContentDigest`) of the plugin's files outside the skill folder,
   * which its skill copy carries. Under the lock a copy whose plugin files
   * differ (or a plugin that came or went) is refused, `E_SKILL_NOT_PINNED`.
   */
  readonly plugin?: { readonly digest: string }
}

/**
 * A parsed, validated lockfile: skill id → what was pinned. `skills` is a
 * `Map`, so an id such as `__proto__` or `constructor` is just an id.
 */
export interface SkillLock {
  readonly lockfileVersion: SkillLockVersion
  readonly skills: ReadonlyMap<string, SkillLockEntry>
}

/** The lockfile's JSON shape, as written by `formatSkillLock`. */
export interface SkillLockFile {
  readonly lockfileVersion: SkillLockVersion
  readonly skills: Readonly<Record<string, SkillLockEntry>>
}

function invalid(
  problem: string,
  data: Record<string, unknown> = {},
  cause?: unknown,
): SkillHostError {
  return new SkillHostError(
    'E_INVALID_SKILLS_CONFIG',
    `The skill lockfile is invalid: ${problem}.`,
    {
      data: { lockfile: true, ...data },
      ...(cause !== undefined && { cause }),
    },
  )
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A value's own keys, refusing any not in `allowed`. */
function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      throw invalid(`${where} has an unknown key ${JSON.stringify(key.slice(0, 64))}`)
  }
}

/** A version-2 entry's `files`: path-ordered, unique, each a path, a `sha256:` digest and a size. */
function filesOf(id: string, where: string, value: unknown): readonly SkillManifestFile[] {
  const bad = (problem: string) => invalid(`${where} ${problem}`, { id })
  if (!Array.isArray(value)) throw bad('has no files list (lockfileVersion 2 records one)')
  if (value.length > MAX_SKILL_LOCK_FILES)
    throw bad(`lists more than ${MAX_SKILL_LOCK_FILES} files`)
  const files: SkillManifestFile[] = []
  for (const file of value as unknown[]) {
    if (!isRecord(file)) throw bad('has a file entry that is not an object')
    onlyKeys(file, ['path', 'digest', 'size'], `a file of ${where}`)
    const { path, digest, size } = file
    if (
      typeof path !== 'string' ||
      path.length === 0 ||
      path.length > MAX_PATH_CHARS ||
      CONTROL.test(path)
    )
      throw bad('has a file path that is empty, too long or holds a control character')
    if (!isSkillFileDigest(digest))
      throw bad('has a file digest that is not sha256: and 64 lowercase hex digits')
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      throw bad('has a file size that is not a whole number of bytes')
    const previous = files[files.length - 1]
    if (previous && !(previous.path < path)) throw bad('lists its files out of path order or twice')
    files.push(Object.freeze({ path, digest, size }))
  }
  return Object.freeze(files)
}

function entryOf(id: string, value: unknown, version: SkillLockVersion): SkillLockEntry {
  const where = `skill ${JSON.stringify(id.slice(0, 64))}`
  if (!isRecord(value)) throw invalid(`${where} is not an object`, { id })
  onlyKeys(
    value,
    version === 1
      ? ['digest', 'source', 'environments']
      : ['digest', 'source', 'files', 'environments', 'plugin'],
    where,
  )
  const { digest, source } = value
  if (!isSkillDigest(digest))
    throw invalid(`${where} has no valid digest (sha256- and 44 base64 characters)`, { id })
  if (typeof source !== 'string' || source.length > MAX_SOURCE_CHARS)
    throw invalid(`${where} has no source string of at most ${MAX_SOURCE_CHARS} characters`, {
      id,
    })
  const environments =
    value.environments === undefined
      ? undefined
      : Object.freeze(
          toLockedEnvironments(value.environments, (problem) => {
            throw invalid(`${where}: ${problem}`, { id })
          }),
        )
  const pinned = {
    ...(environments !== undefined && { environments }),
    ...(value.plugin !== undefined && { plugin: pluginOf(where, id, value.plugin) }),
  }
  return version === 1
    ? Object.freeze({ digest, source, ...pinned })
    : Object.freeze({ digest, source, files: filesOf(id, where, value.files), ...pinned })
}

function pluginOf(where: string, id: string, value: unknown): { readonly digest: string } {
  if (!isRecord(value)) throw invalid(`${where} has a plugin entry that is not an object`, { id })
  onlyKeys(value, ['digest'], `${where} plugin`)
  if (!isSkillDigest(value.digest)) throw invalid(`${where} has no valid plugin digest`, { id })
  return Object.freeze({ digest: value.digest })
}

function checkId(id: string): void {
  if (id.length === 0 || id.length > MAX_ID_CHARS || CONTROL.test(id))
    throw invalid(
      `a skill id is empty, longer than ${MAX_ID_CHARS} characters or holds a control character`,
    )
}

/**
 * Validates a lockfile value: a `SkillLock` (its `skills` a `Map`) or the
 * JSON shape `{ lockfileVersion: 2, skills: { [id]: { digest, source, files } } }`
 * (`files`: `[{ path, digest, size }]` in path order) or its version-1 form
 * without `files`. Anything else — another version, an unknown key, a bad
 * digest, an id that is empty or holds control characters, more than
 * `MAX_SKILL_LOCK_ENTRIES` skills, files out of order — is
 * `E_INVALID_SKILLS_CONFIG` naming the problem.
 */
export function toSkillLock(value: unknown): SkillLock {
  if (!isRecord(value)) throw invalid('the top level is not an object')
  onlyKeys(value, ['lockfileVersion', 'skills'], 'the top level')
  const version = value.lockfileVersion
  if (version !== 1 && version !== 2) throw invalid('lockfileVersion must be 1 or 2')
  const raw = value.skills
  const pairs: Iterable<[string, unknown]> =
    raw instanceof Map ? (raw as Map<string, unknown>) : isRecord(raw) ? Object.entries(raw) : []
  if (!(raw instanceof Map) && !isRecord(raw)) throw invalid('skills is not an object')
  const skills = new Map<string, SkillLockEntry>()
  for (const [id, entry] of pairs) {
    if (typeof id !== 'string') throw invalid('a skill id is not a string')
    checkId(id)
    if (skills.size >= MAX_SKILL_LOCK_ENTRIES)
      throw invalid(`it pins more than ${MAX_SKILL_LOCK_ENTRIES} skills`)
    skills.set(id, entryOf(id, entry, version))
  }
  return Object.freeze({ lockfileVersion: version, skills })
}

/**
 * Parses a lockfile's text (strict UTF-8, at most `MAX_SKILL_LOCK_BYTES`);
 * bad JSON or a bad shape is `E_INVALID_SKILLS_CONFIG` (see `toSkillLock`).
 */
export function parseSkillLock(text: string | Uint8Array): SkillLock {
  const size = typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength
  if (size > MAX_SKILL_LOCK_BYTES)
    throw invalid(`it is ${size} bytes; the limit is ${MAX_SKILL_LOCK_BYTES}`, { size })
  let json: string
  try {
    json = typeof text === 'string' ? text : new TextDecoder('utf-8', { fatal: true }).decode(text)
  } catch (cause) {
    throw invalid('it is not UTF-8 text', {}, cause)
  }
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (cause) {
    const why = cause instanceof Error ? cause.message.slice(0, 200) : 'parse error'
    throw invalid(`it is not JSON (${why})`, {}, cause)
  }
  return toSkillLock(value)
}

/** A lock's JSON shape, ids sorted, ready for `JSON.stringify`. */
export function skillLockFile(lock: SkillLock): SkillLockFile {
  const skills: Record<string, SkillLockEntry> = Object.create(null)
  const ids = [...lock.skills.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const id of ids) {
    const { digest, source, files, environments, plugin } = lock.skills.get(id)!
    const pinned = environments?.length ? { environments } : {}
    const inPlugin = plugin === undefined ? {} : { plugin: { digest: plugin.digest } }
    // defineProperty, not assignment: an id named __proto__ stays a plain key.
    Object.defineProperty(skills, id, {
      value:
        lock.lockfileVersion === 1
          ? { digest, source, ...pinned }
          : {
              digest,
              source,
              files: (files ?? []).map((f) => ({ path: f.path, digest: f.digest, size: f.size })),
              ...pinned,
              ...inPlugin,
            },
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return { lockfileVersion: lock.lockfileVersion, skills }
}

/** The lockfile text for `lock`: stable JSON (ids sorted, two-space indent) and a final newline. */
export function formatSkillLock(lock: SkillLock): string {
  return `${JSON.stringify(skillLockFile(lock), null, 2)}\n`
}
