import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FileSpoolStore, MemorySpoolStore, type SpoolStore } from '../../src/common/index.js'
import { SPOOL_ID_PATTERN } from '../../src/common/spool-store.js'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function fileStore(): Promise<FileSpoolStore> {
  const dir = await mkdtemp(join(tmpdir(), 'skillhost-spool-'))
  dirs.push(dir)
  return new FileSpoolStore({ directory: join(dir, 'spool') })
}

const stores: [string, () => Promise<SpoolStore>][] = [
  ['MemorySpoolStore', async () => new MemorySpoolStore()],
  ['FileSpoolStore', fileStore],
]

describe.each(stores)('%s', (_label, make) => {
  it('round-trips bytes and describes them', async () => {
    const store = await make()
    const bytes = new TextEncoder().encode('hello spool')
    const record = await store.put(bytes, {
      kind: 'markdown',
      mimeType: 'text/markdown',
      title: 'T',
      provenance: { skill: 'pdf', tool: 'extract' },
    })
    expect(record.id).toMatch(SPOOL_ID_PATTERN)
    expect(record).toMatchObject({
      kind: 'markdown',
      mimeType: 'text/markdown',
      size: bytes.byteLength,
      title: 'T',
    })
    expect(record.trusted).toBe(false)
    expect(record.provenance).toEqual({ skill: 'pdf', tool: 'extract' })
    expect(new TextDecoder().decode(await store.get(record.id))).toBe('hello spool')
    expect(await store.stat(record.id)).toEqual(record)
  })

  it('defaults kind text and text/plain, and keeps content immutable', async () => {
    const store = await make()
    const bytes = new Uint8Array([1, 2, 3])
    const record = await store.put(bytes)
    expect(record.kind).toBe('text')
    expect(record.mimeType).toBe('text/plain')
    bytes[0] = 9
    const read = (await store.get(record.id)) as Uint8Array
    expect([...read]).toEqual([1, 2, 3])
    read[1] = 9
    expect([...((await store.get(record.id)) as Uint8Array)]).toEqual([1, 2, 3])
  })

  it('stores text as UTF-8 and sizes it in bytes', async () => {
    const store = await make()
    const record = await store.put('héllo ✓', { kind: 'text' })
    expect(record.size).toBe(Buffer.byteLength('héllo ✓', 'utf8'))
    expect(new TextDecoder().decode(await store.get(record.id))).toBe('héllo ✓')
    if (store.putSync) {
      const sync = store.putSync('sync text')
      expect(new TextDecoder().decode(await store.get(sync.id))).toBe('sync text')
    }
  })

  it('gives unique ids', async () => {
    const store = await make()
    const a = await store.put(new Uint8Array([1]))
    const b = await store.put(new Uint8Array([1]))
    expect(a.id).not.toBe(b.id)
  })

  it('deletes, and unknown ids resolve undefined/false', async () => {
    const store = await make()
    const record = await store.put(new Uint8Array([1]))
    expect(await store.delete(record.id)).toBe(true)
    expect(await store.get(record.id)).toBeUndefined()
    expect(await store.stat(record.id)).toBeUndefined()
    expect(await store.delete(record.id)).toBe(false)
    expect(await store.get('r_0000000000000000')).toBeUndefined()
    expect(await store.stat('nope')).toBeUndefined()
  })
})

describe('FileSpoolStore paths', () => {
  it('rejects ids that name other paths', async () => {
    const store = await fileStore()
    await store.put(new Uint8Array([1]))
    const outside = join(store.directory, '..', 'victim')
    await writeFile(`${outside}.bin`, 'secret')
    await writeFile(`${outside}.json`, '{}')
    for (const id of [
      '../../etc/passwd',
      '../victim',
      '/etc/passwd',
      'r_0000000000000000/../../victim',
      '',
    ]) {
      expect(await store.get(id)).toBeUndefined()
      expect(await store.stat(id)).toBeUndefined()
      expect(await store.delete(id)).toBe(false)
    }
    expect(await readdir(join(store.directory, '..'))).toContain('victim.bin')
  })

  it('writes only finished items: no temporary files remain', async () => {
    const store = await fileStore()
    const record = await store.put(new TextEncoder().encode('x'))
    const files = await readdir(store.directory)
    expect(files.sort()).toEqual([`${record.id}.bin`, `${record.id}.json`])
  })

  it('a second store on the same directory reads what the first wrote', async () => {
    const store = await fileStore()
    const record = await store.put(new TextEncoder().encode('durable'))
    const again = new FileSpoolStore({ directory: store.directory })
    expect(new TextDecoder().decode(await again.get(record.id))).toBe('durable')
    expect((await again.stat(record.id))?.size).toBe(7)
  })
})
