import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WORKSPACE_FILE_MAX_BYTES } from '../../src/common/workspace-files-noted.js'
import { onLinux, type Rig } from '../helpers/sandbox.js'
import { ATTEMPTS, startSwapper } from '../helpers/swapper.js'
import {
  contentBytes,
  listAll,
  type WorkspaceSession,
  workspaceRig,
  workspaceSession,
} from '../helpers/workspace-mcp.js'

// Issue 36 item 1: attacks on the workspace resources (docs/mcp.md,
// "Workspace files"). Each must fail closed (-32602) and never hand out a
// byte from outside the session's own workspace.
const SECRET = 'HOST-SECRET-WS-RESOURCES'

describe.skipIf(!onLinux)('workspace resources under attack', () => {
  let rig: Rig
  let a: WorkspaceSession
  let b: WorkspaceSession
  let host: string
  let uriA: string
  beforeAll(async () => {
    rig = await workspaceRig()
    host = mkdtempSync(join(rig.base, 'host-'))
    writeFileSync(join(host, 'secret.txt'), SECRET)
    a = await workspaceSession(rig)
    b = await workspaceSession(rig)
    const wrote = await a.call('workspace_write', { path: 'd/secret.txt', content: 'inside A' })
    const link = wrote.content.find((c) => c.type === 'resource_link')
    if (link?.type !== 'resource_link') throw new Error('no link')
    uriA = link.uri
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await rig?.cleanup()
  })

  it("another session's URI is refused, and its files are not listed there", async () => {
    expect(contentBytes((await a.client.readResource({ uri: uriA })).contents[0]).toString()).toBe(
      'inside A',
    )
    await expect(b.client.readResource({ uri: uriA })).rejects.toThrow(/-32602/)
    // B has a file at the same path: its own key reads its own; A's key still does not.
    await b.call('workspace_write', { path: 'd/secret.txt', content: 'inside B' })
    await expect(b.client.readResource({ uri: uriA })).rejects.toThrow(/-32602/)
    const bUris = (await listAll(b.client)).uris
    expect(bUris).not.toContain(uriA)
    expect(bUris.filter((u) => u.startsWith('skillhost-workspace:')).length).toBe(1)
  })

  it('a `..`, encoded, doubled or otherwise non-canonical path is refused', async () => {
    const key = uriA.slice(0, uriA.indexOf('/d/secret.txt'))
    const tries = [
      `${key}/../secret.txt`,
      `${key}/d/../d/secret.txt`,
      `${key}/%2e%2e/secret.txt`,
      `${key}/..%2Fsecret.txt`,
      `${key}/d%2Fsecret.txt`,
      `${key}/./d/secret.txt`,
      `${key}//d/secret.txt`,
      `${key}/d/secret%2etxt`,
      `${key}/%2Fetc/passwd`,
      `${key}/d/%E0%A4%A`,
      `${key}/${encodeURIComponent(host)}/secret.txt`,
      `${key.toUpperCase()}/d/secret.txt`,
      `${key}`,
      'skillhost-workspace:///d/secret.txt',
    ]
    let refused = 0
    for (const uri of tries) {
      await expect(a.client.readResource({ uri }), uri).rejects.toThrow(/-32602/)
      refused++
    }
    expect(refused).toBe(tries.length)
  })

  it('a symlink in the workspace (to a host file, or as a parent) is neither listed nor read', async () => {
    symlinkSync(join(host, 'secret.txt'), join(a.dir, 'link.txt'))
    symlinkSync(host, join(a.dir, 'hostdir'))
    const key = uriA.slice(0, uriA.indexOf('/d/secret.txt'))
    await expect(a.client.readResource({ uri: `${key}/link.txt` })).rejects.toThrow(/-32602/)
    await expect(a.client.readResource({ uri: `${key}/hostdir/secret.txt` })).rejects.toThrow(
      /-32602/,
    )
    const listed = (await listAll(a.client)).uris
    expect(listed.some((u) => u.includes('link.txt') || u.includes('hostdir'))).toBe(false)
    // A FIFO is refused at once, never opened blocking.
    execFileSync('mkfifo', [join(a.dir, 'fifo')])
    await expect(a.client.readResource({ uri: `${key}/fifo` })).rejects.toThrow(/-32602/)
    rmSync(join(a.dir, 'link.txt'))
    rmSync(join(a.dir, 'hostdir'))
    rmSync(join(a.dir, 'fifo'))
  })

  it('a file past the read cap is listed with its size but refused whole, never cut', async () => {
    const big = join(a.dir, 'big.bin')
    writeFileSync(big, '')
    truncateSync(big, WORKSPACE_FILE_MAX_BYTES + 1)
    const key = uriA.slice(0, uriA.indexOf('/d/secret.txt'))
    await expect(a.client.readResource({ uri: `${key}/big.bin` })).rejects.toThrow(
      new RegExp(`-32602.*${WORKSPACE_FILE_MAX_BYTES + 1} bytes`),
    )
    const page = await a.client.listResources()
    expect(page.resources.find((r) => r.uri === `${key}/big.bin`)?.size).toBe(
      WORKSPACE_FILE_MAX_BYTES + 1,
    )
    // Exactly at the cap is read whole.
    truncateSync(big, WORKSPACE_FILE_MAX_BYTES)
    const read = await a.client.readResource({ uri: `${key}/big.bin` })
    expect(contentBytes(read.contents[0]).length).toBe(WORKSPACE_FILE_MAX_BYTES)
    rmSync(big)
  })

  it('a parent swapped for a symlink to a host folder during resources/read never leaks a host file (counted race)', async () => {
    chmodSync(host, 0o755)
    let wins = 0
    let reads = 0
    const swapper = await startSwapper(rig.base, a.dir, 'd', host)
    let swaps = 0
    try {
      for (let i = 0; i < ATTEMPTS; i++) {
        const got = await a.client.readResource({ uri: uriA }).catch(() => undefined)
        if (got === undefined) continue
        reads++
        if (contentBytes(got.contents[0]).toString().includes(SECRET)) wins++
      }
    } finally {
      swaps = await swapper.stop()
    }
    console.log(
      `[escape] workspace resources/read: ${ATTEMPTS} attempts, ${swaps} swaps, ${reads} reads, ${wins} wins`,
    )
    expect(swaps).toBeGreaterThan(0)
    expect(wins).toBe(0)
    // The real folder is back: the file reads as before.
    mkdirSync(join(a.dir, 'd'), { recursive: true })
    expect(contentBytes((await a.client.readResource({ uri: uriA })).contents[0]).toString()).toBe(
      'inside A',
    )
  })
})
