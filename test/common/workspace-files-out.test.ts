import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  collectWorkspaceFiles,
  noteWorkspaceFiles,
  WORKSPACE_FILE_MAX_BYTES,
  WORKSPACE_FILES_NOTED_MAX,
} from '../../src/common/workspace-files-noted.js'
import {
  filesOut,
  readWholeFile,
  WORKSPACE_EMBED_MAX_BYTES,
  WORKSPACE_EMBED_TOTAL_BYTES,
} from '../../src/common/workspace-files-out.js'
import { SessionWorkspace } from '../../src/tiers/scripts/workspace/session-workspace.js'

// The one rule both adapters follow to hand workspace files out (issue 36 item 1).
const dir = mkdtempSync(join(tmpdir(), 'skillhost-files-out-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('workspace files out', () => {
  it('notes are per call: two calls in flight on one context see only their own files, capped and counted', async () => {
    const [a, b] = await Promise.all([
      collectWorkspaceFiles(async () => {
        noteWorkspaceFiles([{ path: 'a.txt', change: 'written', size: 1 }])
        await new Promise((r) => setTimeout(r, 5))
        noteWorkspaceFiles([{ path: 'a.txt', change: 'read', size: 2 }])
        return 'a'
      }),
      collectWorkspaceFiles(async () => {
        const many = Array.from({ length: WORKSPACE_FILES_NOTED_MAX + 3 }, (_, i) => ({
          path: `b${i}`,
          change: 'written' as const,
          size: 0,
        }))
        noteWorkspaceFiles(many)
        throw new Error('failed after writing')
      }),
    ])
    expect(a.outcome).toEqual({ ok: true, value: 'a' })
    expect(a.files).toEqual([{ path: 'a.txt', change: 'read', size: 2 }])
    expect(b.outcome.ok).toBe(false)
    expect(b.files).toHaveLength(WORKSPACE_FILES_NOTED_MAX)
    expect(b.dropped).toBe(3)
    // Outside a collection a note goes nowhere.
    expect(() => noteWorkspaceFiles([{ path: 'x', change: 'read', size: 0 }])).not.toThrow()
  })

  it('carries files within 64 KiB each until the per-result budget is spent; the rest are named only', async () => {
    const ws = await SessionWorkspace.create({ dir })
    try {
      const count = Math.floor(WORKSPACE_EMBED_TOTAL_BYTES / WORKSPACE_EMBED_MAX_BYTES) + 2
      const files = Array.from({ length: count }, (_, i) => ({
        path: `f${i}.bin`,
        change: 'written' as const,
        size: WORKSPACE_EMBED_MAX_BYTES,
      }))
      for (const f of files) await ws.put(f.path, new Uint8Array(f.size).fill(0xff))
      await ws.put('gone.txt', 'x')
      await ws.remove('gone.txt')
      const out = await filesOut(
        { files: [...files, { path: 'gone.txt', change: 'deleted', size: 0 }], dropped: 0 },
        async (path) => {
          const read = await readWholeFile(ws, path)
          return read.ok ? read.file : undefined
        },
      )
      const carried = out.filter((f) => f.file !== undefined)
      expect(carried).toHaveLength(WORKSPACE_EMBED_TOTAL_BYTES / WORKSPACE_EMBED_MAX_BYTES)
      expect(out).toHaveLength(count)
      expect(out.map((f) => f.note.path)).not.toContain('gone.txt')
    } finally {
      await ws.dispose()
    }
  })

  it('reads whole or says why not: past the cap, never cut', async () => {
    const ws = await SessionWorkspace.create({ dir })
    try {
      writeFileSync(join(dir, 'big.bin'), '')
      truncateSync(join(dir, 'big.bin'), WORKSPACE_FILE_MAX_BYTES + 1)
      expect(await readWholeFile(ws, 'big.bin')).toEqual({
        ok: false,
        why: 'too-large',
        size: WORKSPACE_FILE_MAX_BYTES + 1,
      })
      writeFileSync(join(dir, 'bom.txt'), '\uFEFFa\r\n')
      const read = await readWholeFile(ws, 'bom.txt')
      expect(read.ok && Buffer.from(read.file.bytes).toString('hex')).toBe('efbbbf610d0a')
      // Exactly these fields: whether it travels as text is resourceContents' rule, not a field.
      expect(read.ok && { ...read.file, bytes: undefined }).toStrictEqual({
        path: 'bom.txt',
        bytes: undefined,
        mimeType: 'text/plain',
      })
    } finally {
      await ws.dispose()
    }
  })
})
