import {
  type ConformanceCheck,
  type ConformanceUnsupported,
  check,
  expectCode,
  expectRejection,
} from '../../common/conformance/conformance-check.js'
import { Tool } from '../../common/tool.js'
import type { DiscoveredSkill, SkillRef, SkillSource } from '../types.js'
import { discoverAll, firstSkill, readAll } from './conformance-helpers.js'

/** Options for the source conformance kit. */
export interface SkillSourceConformanceOptions {
  /** Minimum number of skills a fresh source must yield. Default 1. */
  readonly minSkills?: number
  /**
   * Changes the skill `ref` names so its version becomes stale (e.g. rewrites a
   * file). Without it the "stale after change" check reports unsupported.
   */
  readonly mutate?: (source: SkillSource, ref: SkillRef) => void | Promise<void>
}

/** Paths every source must refuse with `E_SKILL_SOURCE_PATH_REJECTED`. */
export const ESCAPING_PATHS: readonly string[] = [
  '../outside.txt',
  'a/../../outside.txt',
  '/etc/passwd',
  '~/secret',
  'C:\\Windows\\win.ini',
  '\\\\server\\share\\x',
  'ok\0.md',
]

const NOT_FOUND = 'E_SKILL_NOT_FOUND'
const REJECTED = 'E_SKILL_SOURCE_PATH_REJECTED'
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0

/** What discover yields: the expected skills, well-formed, unique, stable across runs. */
function discoverChecks(
  options: SkillSourceConformanceOptions,
  fresh: () => Promise<SkillSource>,
  define: (
    name: string,
    run: () => Promise<undefined | ConformanceUnsupported>,
  ) => ConformanceCheck,
): ConformanceCheck[] {
  return [
    define('source has a non-empty string id', async () => {
      check(isText((await fresh()).id), 'source.id must be a non-empty string')
      return undefined
    }),
    define('discover yields the expected number of skills', async () => {
      const skills = await discoverAll(await fresh())
      const min = options.minSkills ?? 1
      check(
        skills.length >= min,
        `discover() yielded ${skills.length} skills; expected at least ${min}`,
      )
      return undefined
    }),
    define('discovered skills are well-formed', async () => {
      for (const s of await discoverAll(await fresh())) {
        check(
          isText(s.id) && isText(s.version),
          `skill ${JSON.stringify(s.id)} needs non-empty string id and version`,
        )
        check(
          isText(s.name) && isText(s.description),
          `skill "${s.id}" needs a non-empty name and description`,
        )
        for (const [k, v] of Object.entries(s.metadata ?? {}))
          check(typeof v === 'string', `skill "${s.id}" metadata.${k} is not a string`)
        check(
          s.warnings === undefined || s.warnings.every((w) => typeof w === 'string'),
          `skill "${s.id}" warnings must be strings`,
        )
      }
      return undefined
    }),
    define('discovered ids are unique', async () => {
      const ids = (await discoverAll(await fresh())).map((s) => s.id)
      const dup = ids.find((id, i) => ids.indexOf(id) !== i)
      check(dup === undefined, `discover() yielded id "${dup}" twice`)
      return undefined
    }),
    define('discover is repeatable with stable versions', async () => {
      const source = await fresh()
      const key = (list: { id: string; version: string }[]): string =>
        list
          .map((s) => `${s.id}@${s.version}`)
          .sort()
          .join('\n')
      const a = key(await discoverAll(source))
      check(
        a === key(await discoverAll(source)),
        'a second discover() of an unchanged source gave different ids or versions',
      )
      return undefined
    }),
  ]
}

/** discoverBatch and the descriptors agree with what discover yields. */
function batchAndDescriptorChecks(
  fresh: () => Promise<SkillSource>,
  define: (
    name: string,
    run: () => Promise<undefined | ConformanceUnsupported>,
  ) => ConformanceCheck,
): ConformanceCheck[] {
  return [
    define('discoverBatch, when offered, gives what discover does', async () => {
      const source = await fresh()
      if (!source.discoverBatch) return { unsupported: 'the source offers no discoverBatch' }
      const problems: string[] = []
      const eachProblems: string[] = []
      const batch = await source.discoverBatch({ report: (p) => void problems.push(p.code) })
      const each: DiscoveredSkill[] = []
      for await (const s of source.discover({ report: (p) => void eachProblems.push(p.code) }))
        each.push(s)
      const key = (list: readonly DiscoveredSkill[]): string =>
        list.map((s) => `${s.id}@${s.version}`).join('\n')
      check(
        key(batch) === key(each),
        'discoverBatch() and discover() gave different skills or order',
      )
      check(
        problems.join() === eachProblems.join(),
        'discoverBatch() and discover() reported different problems',
      )
      let aborted = false
      try {
        await source.discoverBatch({ signal: AbortSignal.abort() })
      } catch {
        aborted = true
      }
      check(aborted, 'discoverBatch({ signal: aborted }) resolved instead of rejecting')
      return undefined
    }),
    define('descriptor matches the ref', async () => {
      const source = await fresh()
      for (const s of await discoverAll(source)) {
        const d = await source.descriptor({ id: s.id, version: s.version })
        check(
          d.id === s.id && d.version === s.version,
          `descriptor("${s.id}") returned ${d.id}@${d.version}`,
        )
        check(
          d.name === s.name && d.description === s.description,
          `descriptor("${s.id}") name/description differ from discovery`,
        )
        check(
          (d.tools ?? []).every((t) => Tool.isInstance(t)),
          `descriptor("${s.id}").tools must hold Tool instances`,
        )
        for (const sc of d.scripts ?? [])
          check(
            isText(sc.name) && isText(sc.path) && isText(sc.interpreter),
            `descriptor("${s.id}") has a malformed script`,
          )
        for (const t of d.isolatedTools ?? [])
          check(
            isText(t.name) && isText(t.source),
            `descriptor("${s.id}") has a malformed isolated tool`,
          )
      }
      return undefined
    }),
  ]
}

/** read, stat and list of a discovered skill. */
function readChecks(
  withSkill: () => Promise<[SkillSource, SkillRef]>,
  define: (
    name: string,
    run: () => Promise<undefined | ConformanceUnsupported>,
  ) => ConformanceCheck,
): ConformanceCheck[] {
  return [
    define('read() with no path returns the body as bytes', async () => {
      const [source, ref] = await withSkill()
      const bytes = await readAll(await source.read(ref))
      new TextDecoder('utf-8', { fatal: true }).decode(bytes)
      return undefined
    }),
    define('stat() of the body matches the bytes read', async () => {
      const [source, ref] = await withSkill()
      const bytes = await readAll(await source.read(ref))
      const st = await source.stat(ref)
      check(
        st.size === bytes.byteLength,
        `stat().size is ${st.size} but read() gave ${bytes.byteLength} bytes`,
      )
      check(isText(st.version), 'stat().version must be a non-empty string')
      return undefined
    }),
    define('list() paths are normalized and readable', async () => {
      const [source, ref] = await withSkill()
      if (!source.list) return { unsupported: 'the source does not implement the optional list()' }
      for (const path of await source.list(ref)) {
        check(
          !path.startsWith('/') && !path.split('/').includes('..') && !path.includes('\\'),
          `list() returned unnormalized "${path}"`,
        )
        const bytes = await readAll(await source.read(ref, path))
        const st = await source.stat(ref, path)
        check(
          st.size === bytes.byteLength,
          `stat("${path}").size is ${st.size} but read() gave ${bytes.byteLength} bytes`,
        )
      }
      return undefined
    }),
  ]
}

/** Unknown versions, ids and files, and path escapes, each refused with its stable code. */
function rejectionChecks(
  withSkill: () => Promise<[SkillSource, SkillRef]>,
  define: (
    name: string,
    run: () => Promise<undefined | ConformanceUnsupported>,
  ) => ConformanceCheck,
): ConformanceCheck[] {
  return [
    define('an unknown version is rejected with E_SKILL_NOT_FOUND', async () => {
      const [source, ref] = await withSkill()
      const stale = { id: ref.id, version: `${ref.version}-not-issued` }
      await expectCode(() => source.descriptor(stale), NOT_FOUND, 'descriptor(unknown version)')
      await expectCode(() => source.read(stale), NOT_FOUND, 'read(unknown version)')
      await expectCode(() => source.stat(stale), NOT_FOUND, 'stat(unknown version)')
      if (source.list)
        await expectCode(() => source.list!(stale), NOT_FOUND, 'list(unknown version)')
      return undefined
    }),
    define('an unknown id is rejected with E_SKILL_NOT_FOUND', async () => {
      const [source, ref] = await withSkill()
      const missing = { id: `${ref.id}-does-not-exist`, version: ref.version }
      await expectCode(() => source.descriptor(missing), NOT_FOUND, 'descriptor(unknown id)')
      await expectCode(() => source.read(missing), NOT_FOUND, 'read(unknown id)')
      return undefined
    }),
    define('a missing file is rejected with E_SKILL_NOT_FOUND', async () => {
      const [source, ref] = await withSkill()
      await expectCode(
        () => source.read(ref, 'no-such-file-here.txt'),
        NOT_FOUND,
        'read(missing file)',
      )
      await expectCode(
        () => source.stat(ref, 'no-such-file-here.txt'),
        NOT_FOUND,
        'stat(missing file)',
      )
      return undefined
    }),
    define('path escapes are rejected with E_SKILL_SOURCE_PATH_REJECTED', async () => {
      const [source, ref] = await withSkill()
      for (const path of ESCAPING_PATHS) {
        const shown = JSON.stringify(path)
        await expectCode(() => source.read(ref, path), REJECTED, `read(${shown})`)
        await expectCode(() => source.stat(ref, path), REJECTED, `stat(${shown})`)
      }
      return undefined
    }),
  ]
}

/** Abort signals honoured by discover and read, and a changed skill making its old version stale. */
function abortAndStalenessChecks(
  options: SkillSourceConformanceOptions,
  fresh: () => Promise<SkillSource>,
  withSkill: () => Promise<[SkillSource, SkillRef]>,
  define: (
    name: string,
    run: () => Promise<undefined | ConformanceUnsupported>,
  ) => ConformanceCheck,
): ConformanceCheck[] {
  return [
    define('discover honours an already-aborted signal', async () => {
      const source = await fresh()
      let yielded = 0
      await expectRejection(async () => {
        for await (const _ of source.discover({ signal: AbortSignal.abort() })) yielded++
      }, 'discover({ signal: aborted })')
      check(yielded === 0, `discover() yielded ${yielded} skills after the signal was aborted`)
      return undefined
    }),
    define('discover stops when the signal aborts mid-way', async () => {
      const source = await fresh()
      const controller = new AbortController()
      let after = 0
      let threw = false
      try {
        for await (const _ of source.discover({ signal: controller.signal })) {
          if (controller.signal.aborted) after++
          controller.abort()
        }
      } catch {
        threw = true
      }
      check(after === 0, `discover() yielded ${after} skills after the signal was aborted`)
      const total = (await discoverAll(source)).length
      check(threw || total <= 1, 'discover() ended quietly after an abort instead of rejecting')
      return undefined
    }),
    define('read() honours an aborted signal', async () => {
      const [source, ref] = await withSkill()
      await expectRejection(
        () => source.read(ref, undefined, { signal: AbortSignal.abort() }),
        'read({ signal: aborted })',
      )
      await expectRejection(
        () => source.descriptor(ref, { signal: AbortSignal.abort() }),
        'descriptor({ signal: aborted })',
      )
      return undefined
    }),
    define('a changed skill makes the old version stale', async () => {
      if (!options.mutate)
        return { unsupported: 'no mutate option was given, so the kit cannot change a skill' }
      const [source, ref] = await withSkill()
      await options.mutate(source, ref)
      const again = (await discoverAll(source)).find((s) => s.id === ref.id)
      check(
        !again || again.version !== ref.version,
        'the skill kept its version after mutate() changed it',
      )
      await expectCode(() => source.descriptor(ref), NOT_FOUND, 'descriptor(stale ref)')
      await expectCode(() => source.read(ref), NOT_FOUND, 'read(stale ref)')
      return undefined
    }),
  ]
}

/**
 * The checks of the `SkillSource` contract, each on a fresh source from
 * `makeSource`. Framework-free: run them with `runSkillSourceConformance` or
 * wrap each in your test runner's `it`.
 */
export function skillSourceConformanceChecks(
  makeSource: () => SkillSource | Promise<SkillSource>,
  options: SkillSourceConformanceOptions = {},
): ConformanceCheck[] {
  const fresh = async (): Promise<SkillSource> => makeSource()
  const withSkill = async (): Promise<[SkillSource, SkillRef]> => {
    const source = await fresh()
    const skill = await firstSkill(source)
    return [source, { id: skill.id, version: skill.version }]
  }
  const define = (
    name: string,
    run: () => Promise<undefined | ConformanceUnsupported>,
  ): ConformanceCheck => ({ name, run })
  return [
    ...discoverChecks(options, fresh, define),
    ...batchAndDescriptorChecks(fresh, define),
    ...readChecks(withSkill, define),
    ...rejectionChecks(withSkill, define),
    ...abortAndStalenessChecks(options, fresh, withSkill, define),
  ]
}
