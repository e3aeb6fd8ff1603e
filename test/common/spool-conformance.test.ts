import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FileSpoolStore, MemorySpoolStore, type SpoolStore } from '../../src/common/index.js'
import { describeSpooled, newSpoolId } from '../../src/common/spool-store.js'
import {
  formatConformanceReport,
  runSpoolStoreConformance,
} from '../../src/sources/conformance/index.js'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function fileStore(): Promise<FileSpoolStore> {
  const dir = await mkdtemp(join(tmpdir(), 'skillhost-spool-kit-'))
  dirs.push(dir)
  return new FileSpoolStore({ directory: join(dir, 'spool') })
}

describe('runSpoolStoreConformance', () => {
  it('passes MemorySpoolStore; what it lacks is named unsupported, with a reason', async () => {
    const report = await runSpoolStoreConformance('memory', () => new MemorySpoolStore(), {
      withQuota: (quota) => new MemorySpoolStore(quota),
    })
    expect(report.failed, formatConformanceReport(report)).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.unsupported.map((u) => u.name).sort()).toEqual(
      [
        'an idempotency key is scoped to its session',
        'an item put on one handle is read and deleted on another over the same storage',
        'concurrent puts with one key on two handles over the same storage end with one item',
        "prune by session removes that session's items; keepSessions protects others",
        'prune by age removes items older than maxAgeMs and keeps the rest',
        'prune by size removes the oldest items first',
        'prune refuses bounds that are negative or not numbers',
      ].sort(),
    )
    expect(report.unsupported.every((u) => u.reason.length > 0)).toBe(true)
    expect(report.passed.length).toBeGreaterThanOrEqual(15)
  })

  it('passes FileSpoolStore, two handles on one directory included', async () => {
    const report = await runSpoolStoreConformance('file', fileStore, {
      sameStorage: (store) =>
        new FileSpoolStore({ directory: (store as FileSpoolStore).directory }),
      withQuota: async (quota) =>
        new FileSpoolStore({ directory: (await fileStore()).directory, ...quota }),
    })
    expect(report.failed, formatConformanceReport(report)).toEqual([])
    expect(report.passed).toContain(
      'concurrent puts with one key on two handles over the same storage end with one item',
    )
    expect(report.unsupported.map((u) => u.name)).not.toContain(
      'open streams a large item in several pieces',
    )
    expect(report.passed).toContain(
      'a put past maxItems is refused with E_SPOOL_FULL and stores nothing',
    )
  })

  it('fails a deliberately broken store, naming each broken check', async () => {
    // Shares its buffers, throws on malformed ids, ignores idempotency keys,
    // streams everything in one piece whatever the range, prunes newest first
    // and forgets the title.
    const broken = (): SpoolStore => {
      const items = new Map<
        string,
        { bytes: Uint8Array; record: ReturnType<typeof describeSpooled> }
      >()
      return {
        async put(content, meta) {
          const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content
          const { title: _dropped, ...rest } = meta ?? {}
          const record = describeSpooled(newSpoolId(), bytes, rest)
          items.set(record.id, { bytes, record })
          return record
        },
        async get(id) {
          if (!id.startsWith('r_')) throw new Error('bad id')
          return items.get(id)?.bytes
        },
        async stat(id) {
          return items.get(id)?.record
        },
        async delete(id) {
          return items.delete(id)
        },
        async open(id) {
          const item = items.get(id)
          if (!item) return undefined
          return new ReadableStream({
            start(c) {
              c.enqueue(item.bytes)
              c.close()
            },
          })
        },
        async prune(o) {
          const newest = [...items.keys()].reverse()
          let removed = 0
          for (const id of newest.slice(0, o.maxBytes === undefined ? 0 : 1)) {
            items.delete(id)
            removed++
          }
          return { removed, removedBytes: 0, keptBytes: 0 }
        },
      }
    }
    // It also ignores the quota it is given.
    const report = await runSpoolStoreConformance('broken', broken, { withQuota: () => broken() })
    expect(report.ok).toBe(false)
    const failed = report.failed.map((f) => f.name)
    expect(failed).toEqual(
      expect.arrayContaining([
        'put returns a frozen record shaped like describeSpooled, and stat returns it',
        'content is immutable: mutating the input or a read copy changes nothing',
        'unknown and malformed ids resolve undefined or false, never throw',
        'open streams a large item in several pieces',
        'open reads byte ranges: across piece seams, clamped, empty and past the end',
        'open refuses invalid ranges with E_ARTIFACT_READ_INVALID',
        'a put retried with the same idempotency key returns the first record',
        'concurrent puts with one key end with one item',
        'idempotency keys are checked: empty, NUL or over 256 characters is a TypeError',
        'prune by age removes items older than maxAgeMs and keeps the rest',
        'prune by size removes the oldest items first',
        'prune refuses bounds that are negative or not numbers',
        'a put past maxItems is refused with E_SPOOL_FULL and stores nothing',
        'a put past maxBytes is refused; a keyed retry of a stored item is not counted again',
      ]),
    )
    expect(report.passed).toContain('ids are unique and unguessable across puts')
    expect(formatConformanceReport(report)).toMatch(/FAIL content is immutable/)
  })
})
