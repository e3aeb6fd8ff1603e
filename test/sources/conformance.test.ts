import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import {
  formatConformanceReport,
  runSkillSourceConformance,
} from '../../src/sources/conformance/index.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { InMemorySkillSource } from '../../src/sources/in-memory-skill-source.js'
import type { SkillSource } from '../../src/sources/types.js'
import { makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

const roots: string[] = []
afterAll(async () => {
  await Promise.all(roots.map(removeTree))
})

async function fsSource(): Promise<FileSystemSkillSource> {
  const root = await makeTree({
    'one/SKILL.md': skillMd('one', 'One.', '', 'Body one ✓\n'),
    'one/ref/notes.md': 'notes',
    'two/SKILL.md': skillMd('two'),
  })
  roots.push(root)
  return new FileSystemSkillSource({ roots: root })
}

function memorySource(): InMemorySkillSource {
  return new InMemorySkillSource({
    skills: [
      { name: 'one', description: 'One.', body: 'Body one', files: { 'a.txt': 'a' } },
      { name: 'two', description: 'Two.', body: '' },
    ],
  })
}

describe('runSkillSourceConformance', () => {
  it('passes FileSystemSkillSource with every check supported', async () => {
    const report = await runSkillSourceConformance('fs', fsSource, {
      minSkills: 2,
      mutate: async (source, ref) => {
        const root = (source as FileSystemSkillSource).roots[0]!
        await writeFile(join(root, ref.id, 'added.txt'), 'changed')
      },
    })
    expect(report.failed, formatConformanceReport(report)).toEqual([])
    expect(report.unsupported).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.passed.length).toBeGreaterThanOrEqual(15)
  })

  it('passes InMemorySkillSource', async () => {
    const report = await runSkillSourceConformance('memory', memorySource, {
      mutate: (source, ref) => {
        ;(source as InMemorySkillSource).replace({
          name: ref.id,
          description: 'Changed.',
          body: 'new',
        })
      },
    })
    expect(report.failed, formatConformanceReport(report)).toEqual([])
    expect(report.unsupported).toEqual([])
  })

  it('says unsupported (never skips silently) when list or mutate is missing', async () => {
    const report = await runSkillSourceConformance('no-list', () => {
      const inner = memorySource()
      return {
        id: inner.id,
        discover: (o) => inner.discover(o),
        descriptor: (r, o) => inner.descriptor(r, o),
        read: (r, p, o) => inner.read(r, p, o),
        stat: (r, p) => inner.stat(r, p),
      } satisfies SkillSource
    })
    expect(report.failed).toEqual([])
    expect(report.unsupported.map((u) => u.name).sort()).toEqual([
      'a changed skill makes the old version stale',
      'discoverBatch, when offered, gives what discover does',
      'list() paths are normalized and readable',
    ])
    expect(report.unsupported.every((u) => u.reason.length > 0)).toBe(true)
  })

  it('fails a deliberately broken source, naming each broken check', async () => {
    // Ignores versions, accepts any path, misreports sizes and ignores abort signals.
    const broken = (): SkillSource => {
      const inner = memorySource()
      const current = async (id: string) => {
        for await (const s of inner.discover()) if (s.id === id) return s
        throw new SkillHostError('E_SKILL_NOT_FOUND', 'no')
      }
      return {
        id: 'broken',
        async *discover() {
          yield* inner.discover()
        },
        // Drops the last skill and ignores the signal.
        discoverBatch: async () => (await inner.discoverBatch()).slice(0, -1),
        descriptor: async (r) => inner.descriptor(await current(r.id)),
        read: async (r, p) =>
          inner.read(await current(r.id), p?.replace(/^[./\\~]+|\0/g, '') || undefined),
        stat: async (r) => ({ size: 999, version: (await current(r.id)).version }),
        list: async (r) => ['../escape', ...(await inner.list(await current(r.id)))],
      }
    }
    const report = await runSkillSourceConformance('broken', broken)
    expect(report.ok).toBe(false)
    const failed = report.failed.map((f) => f.name)
    expect(failed).toEqual(
      expect.arrayContaining([
        'stat() of the body matches the bytes read',
        'list() paths are normalized and readable',
        'an unknown version is rejected with E_SKILL_NOT_FOUND',
        'path escapes are rejected with E_SKILL_SOURCE_PATH_REJECTED',
        'discover honours an already-aborted signal',
        'discover stops when the signal aborts mid-way',
        'discoverBatch, when offered, gives what discover does',
        'read() honours an aborted signal',
      ]),
    )
    expect(report.passed).toContain('discovered ids are unique')
    expect(formatConformanceReport(report)).toMatch(/FAIL stat\(\) of the body/)
  })
})
