import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createDirectoryWorkspace,
  createPathTranslator,
} from '../../../../src/tiers/scripts/index.js'
import { filesFromSource } from '../../../../src/tiers/scripts/internal.js'
import { codeOf } from '../../../helpers/error-code.js'
import { files } from '../../../helpers/sandbox.js'

const base = mkdtempSync(join(tmpdir(), 'skillhost-ws-'))
// As root the sandbox reads the workspace as uid 65534, which must traverse the base.
chmodSync(base, 0o755)
const asRoot = process.getuid?.() === 0
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('createDirectoryWorkspace', () => {
  it('materializes into a fresh root per call, so two versions coexist, and disposes idempotently', async () => {
    const ws = await createDirectoryWorkspace({ baseDir: join(base, 'a') })
    const v1 = await ws.materialize({ id: 'pdf', version: '1' }, files({ 'a/b.txt': 'one' }))
    const v2 = await ws.materialize({ id: 'pdf', version: '2' }, files({ 'a/b.txt': 'two' }))
    const again = await ws.materialize({ id: 'pdf', version: '1' }, files({ 'a/b.txt': 'one' }))
    expect(new Set([v1, v2, again]).size).toBe(3)
    expect(readFileSync(join(v1, 'a/b.txt'), 'utf8')).toBe('one')
    expect(readFileSync(join(v2, 'a/b.txt'), 'utf8')).toBe('two')
    // Private to this process and, as root, the sandbox's group: never world-readable.
    expect(lstatSync(join(v1, 'a/b.txt')).mode & 0o777).toBe(asRoot ? 0o640 : 0o600)
    await ws.dispose(v1)
    await ws.dispose(v1)
    expect(existsSync(v1)).toBe(false)
    expect(existsSync(v2)).toBe(true)
    expect(await codeOf(ws.dispose('/etc'))).toBe('E_SKILL_WORKSPACE_FAILED')
    expect(await codeOf(ws.dispose(ws.skillsDir))).toBe('E_SKILL_WORKSPACE_FAILED')
  })

  it('rejects unsafe paths, duplicates and oversize files, leaving no partial root', async () => {
    const ws = await createDirectoryWorkspace({ baseDir: join(base, 'b'), maxFileBytes: 8 })
    expect(
      await codeOf(ws.materialize({ id: 's', version: '1' }, files({ '../escape': 'x' }))),
    ).toBe('E_SKILL_SOURCE_PATH_REJECTED')
    expect(await codeOf(ws.materialize({ id: 's', version: '1' }, files({ '/abs': 'x' })))).toBe(
      'E_SKILL_SOURCE_PATH_REJECTED',
    )
    const dup = [...files({ 'x.txt': 'a' }), ...files({ './x.txt': 'b' })]
    expect(await codeOf(ws.materialize({ id: 's', version: '1' }, dup))).toBe(
      'E_SKILL_WORKSPACE_FAILED',
    )
    expect(
      await codeOf(ws.materialize({ id: 's', version: '1' }, files({ big: '123456789' }))),
    ).toBe('E_SKILL_WORKSPACE_FAILED')
    const reading = [{ path: 'x', read: () => Promise.reject(new Error('source broke')) }]
    expect(await codeOf(ws.materialize({ id: 's', version: '1' }, reading))).toBe(
      'E_SKILL_WORKSPACE_FAILED',
    )
    const controller = new AbortController()
    controller.abort()
    expect(
      await codeOf(
        ws.materialize({ id: 's', version: '1' }, files({ a: 'b' }), { signal: controller.signal }),
      ),
    ).toBe('E_ABORTED')
    const { readdirSync } = await import('node:fs')
    expect(readdirSync(ws.skillsDir)).toEqual([])
  })

  it('streams files from a source shaped like SkillSource', async () => {
    const ws = await createDirectoryWorkspace({ baseDir: join(base, 'c') })
    const source = {
      list: async () => ['scripts/run.sh', 'README.md'],
      read: async (_ref: unknown, path?: string) =>
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode(`${path}:`))
            c.enqueue(new TextEncoder().encode('ok'))
            c.close()
          },
        }),
    }
    const ref = { id: 'src', version: 'v' }
    const root = await ws.materialize(ref, await filesFromSource(source, ref))
    expect(readFileSync(join(root, 'scripts/run.sh'), 'utf8')).toBe('scripts/run.sh:ok')
    const scratch = await ws.createScratch()
    expect(existsSync(scratch)).toBe(true)
    await ws.disposeScratch(scratch)
    expect(existsSync(scratch)).toBe(false)
    expect(await codeOf(ws.disposeScratch('/tmp'))).toBe('E_SKILL_WORKSPACE_FAILED')
  })
})

describe('createPathTranslator', () => {
  it('maps root, scratch and workspace to fixed sandbox paths and redacts host paths by whole segments', () => {
    const t = createPathTranslator({ hiddenHostPaths: ['/srv/ws'] }).forCall({
      skillRoot: '/srv/ws/skills/pdf-1-abc',
      scratchDir: '/srv/ws/scratch/call-9',
      workspaceDir: '/home/u/project',
    })
    expect(t.toSandbox('/srv/ws/skills/pdf-1-abc/scripts/a.py')).toBe('/skill/scripts/a.py')
    expect(t.toSandbox('/srv/ws/scratch/call-9')).toBe('/tmp')
    expect(t.toSandbox('/home/u/project/out.pdf')).toBe('/work/out.pdf')
    expect(t.redact('wrote /home/u/project/out.pdf')).toBe('wrote /work/out.pdf')
    expect(t.toSandbox('/usr/bin/python3')).toBe('/usr/bin/python3')
    expect(
      t.redact(
        'at /srv/ws/skills/pdf-1-abc/x and /srv/ws/scratch/call-9 and /srv/ws/other, /srv/wsx',
      ),
    ).toBe('at /skill/x and /tmp and <host>/other, /srv/wsx')
  })

  it('refuses mounts that overlap each other or system directories', () => {
    expect(() => createPathTranslator({ skillMount: '/usr/skill' })).toThrow(/system directory/)
    expect(() => createPathTranslator({ skillMount: '/w', scratchMount: '/w/x' })).toThrow(
      /contain each other/,
    )
    expect(() => createPathTranslator({ workspaceMount: '/skill/w' })).toThrow(/contain each other/)
  })
})
