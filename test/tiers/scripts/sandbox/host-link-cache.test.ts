import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  RACY_MS,
  rememberedLinks,
  rememberHostLinks,
  rememberWalk,
  type WalkRecord,
} from '../../../../src/tiers/scripts/sandbox/host-link-cache.js'
import {
  hostLinkClosure,
  hostSystemLinks,
  walkSystemFolders,
} from '../../../../src/tiers/scripts/sandbox/host-link-closure.js'

// Issue 39 item 3: a `skillhost run` running as root checks the identity of
// the folders an earlier walk read instead of reading their 140,000 entries.
// The cache is a hint, never a grant; these tests try the ways a stale or
// foreign file could be taken for the walk.

// Root on Linux only: the cache is off for anyone else (the last test proves it).
const asRoot = process.platform === 'linux' && process.geteuid?.() === 0
const CACHE = 'system-links-2.json'
const temps: string[] = []

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}

/** A fake system folder: links at two depths, a plain file and an empty folder. */
function systemTree(): string {
  const root = temp('skillhost-links-root-')
  mkdirSync(join(root, 'bin'))
  mkdirSync(join(root, 'share/deep'), { recursive: true })
  symlinkSync('/etc/hostname', join(root, 'bin/host'))
  symlinkSync('../bin/host', join(root, 'share/deep/rel'))
  writeFileSync(join(root, 'bin/plain'), 'x')
  return root
}

/** The tree's walk remembered as a process that started after the tree settled would. */
async function remembered(root: string): Promise<WalkRecord> {
  const { record } = await walkSystemFolders([root], true)
  if (record === undefined) throw new Error('no record')
  rememberWalk(record, Date.now() + RACY_MS + 1000)
  return record
}

let cacheDir = ''
beforeEach(() => {
  cacheDir = temp('skillhost-links-cache-')
  rememberHostLinks(cacheDir)
})
afterEach(() => rememberHostLinks(undefined))
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true })
})

describe.skipIf(!asRoot)('the remembered walk of the system folders (root only)', () => {
  it('remembers a walk of folders that did not just change; the next process reads the same links', async () => {
    const walked = await hostSystemLinks(['/usr/bin'])
    expect(existsSync(join(cacheDir, CACHE))).toBe(true)
    expect(rememberedLinks(['/usr/bin'])).toEqual(walked)
    // Other roots, or the same in another order, are another walk.
    expect(rememberedLinks(['/usr/sbin'])).toBeUndefined()
  })

  it('does not remember a walk of folders changed within the clock margin (the racy case)', async () => {
    const root = systemTree()
    // Only the link out of the root is kept; the one into it needs no grant.
    expect(await hostSystemLinks([root])).toEqual([join(root, 'bin/host')])
    expect(existsSync(join(cacheDir, CACHE))).toBe(false)
  })

  it('keeps only outward links, yet a chain through an inward one still reaches its target', async () => {
    const root = systemTree()
    // share/deep/rel -> ../bin/host -> /etc/hostname: granted through bin/host's own entry.
    const closure = await hostLinkClosure({ roots: [root], visible: [root], never: [] })
    expect(closure).toEqual(['/etc/hostname'].filter((p) => existsSync(p)))
  })

  it("drops no link of the host's own folders whose chain leaves them: one on the chain is kept", async () => {
    // Real folders only, as the walk takes them (Debian's /bin is a link to usr/bin).
    const roots = ['/usr/bin', '/bin', '/usr/sbin', '/usr/lib'].filter((p) =>
      lstatSync(p, { throwIfNoEntry: false })?.isDirectory(),
    )
    const kept = new Set(await hostSystemLinks(roots))
    const inside = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}/`))
    // Every link, found by this test's own walk; each followed hop by hop while it stays inside.
    const links: string[] = []
    const pending = [...roots]
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isSymbolicLink()) links.push(join(dir, e.name))
        else if (e.isDirectory()) pending.push(join(dir, e.name))
      }
    }
    let leaving = 0
    for (const link of links) {
      let current = link
      for (let hop = 0; hop < 40; hop++) {
        let target: string
        try {
          target = readlinkSync(current)
        } catch {
          break
        }
        const next = resolve(dirname(current), target)
        if (!inside(next)) {
          leaving++
          expect(kept.has(current), `${link}: ${current} leads to ${next}`).toBe(true)
          break
        }
        current = next
      }
    }
    // The host has such links (Debian's alternatives), and most links stay inside.
    expect(leaving).toBeGreaterThan(0)
    expect(kept.size).toBeLessThan(links.length)
  })

  it('gives the walk again once a link is added, removed, renamed over or a folder made', async () => {
    const root = systemTree()
    const changes: (() => void)[] = [
      () => symlinkSync('/etc/hosts', join(root, 'share/deep/new')),
      () => unlinkSync(join(root, 'share/deep/rel')),
      () => {
        symlinkSync('/etc/hosts', join(root, 'tmp-link'))
        renameSync(join(root, 'tmp-link'), join(root, 'bin/plain'))
      },
      () => mkdirSync(join(root, 'share/deep/more')),
      () => chmodSync(join(root, 'share'), 0o700),
    ]
    for (const change of changes) {
      const record = await remembered(root)
      expect(rememberedLinks([root])).toEqual(record.links)
      change()
      expect(rememberedLinks([root])).toBeUndefined()
    }
  })

  it('takes no file from a folder that is not private to root: group or others, another owner, a symlink', async () => {
    const root = systemTree()
    await remembered(root)
    expect(rememberedLinks([root])).toBeDefined()
    chmodSync(cacheDir, 0o750)
    expect(rememberedLinks([root])).toBeUndefined()
    chmodSync(cacheDir, 0o707)
    expect(rememberedLinks([root])).toBeUndefined()
    chmodSync(cacheDir, 0o700)
    chownSync(cacheDir, 65534, 0)
    expect(rememberedLinks([root])).toBeUndefined()
    chownSync(cacheDir, 0, 0)
    expect(rememberedLinks([root])).toBeDefined()
    // The folder named through a symlink to the very same private folder.
    const linked = join(temp('skillhost-links-via-'), 'cache')
    symlinkSync(cacheDir, linked)
    rememberHostLinks(linked)
    expect(rememberedLinks([root])).toBeUndefined()
    // And nothing is written there either.
    rememberHostLinks(cacheDir)
    rmSync(join(cacheDir, CACHE))
    chmodSync(cacheDir, 0o755)
    await remembered(root)
    expect(existsSync(join(cacheDir, CACHE))).toBe(false)
  })

  it('takes no file that is not root-owned, private and regular: another owner, a mode for others, a symlink', async () => {
    const root = systemTree()
    await remembered(root)
    const file = join(cacheDir, CACHE)
    chmodSync(file, 0o644)
    expect(rememberedLinks([root])).toBeUndefined()
    chmodSync(file, 0o600)
    chownSync(file, 65534, 0)
    expect(rememberedLinks([root])).toBeUndefined()
    chownSync(file, 0, 0)
    expect(rememberedLinks([root])).toBeDefined()
    const elsewhere = join(temp('skillhost-links-file-'), CACHE)
    renameSync(file, elsewhere)
    symlinkSync(elsewhere, file)
    expect(rememberedLinks([root])).toBeUndefined()
  })

  it('grants nothing from a poisoned file: a link outside the roots, a plain file, a missing path', async () => {
    const root = systemTree()
    const record = await remembered(root)
    const outside = join(temp('skillhost-links-evil-'), 'evil')
    symlinkSync('/etc/hostname', outside)
    const poisoned = {
      ...record,
      links: [outside, root, join(root, 'bin/plain'), join(root, 'bin/gone'), 7],
    }
    writeFileSync(join(cacheDir, CACHE), JSON.stringify(poisoned), { mode: 0o600 })
    // Taken (its folders are unchanged), but only its entries inside the root survive.
    expect(rememberedLinks([root])).toEqual([join(root, 'bin/plain'), join(root, 'bin/gone')])
    expect(await hostLinkClosure({ roots: [root], visible: [root], never: [] })).toEqual([])
    // The file is read back as JSON of the walk's shape, or not at all.
    for (const bad of ['{', '[]', '{"roots":[],"dirs":[],"links":{}}', 'null']) {
      writeFileSync(join(cacheDir, CACHE), bad, { mode: 0o600 })
      expect(rememberedLinks([root])).toBeUndefined()
    }
    expect(readFileSync(join(cacheDir, CACHE), 'utf8')).toBe('null')
  })

  it('is off for a process that is not root, whatever folder it is given', async () => {
    const { execFileSync } = await import('node:child_process')
    // The module is loaded as root (the checkout may sit where nobody else can
    // read it), then the process gives up root before it asks: the rule is
    // judged by who the process is when it would write, not when it loaded.
    const code = [
      `const m = await import(${JSON.stringify(new URL('../../../../dist/tiers/scripts/sandbox/host-link-cache.js', import.meta.url).href)})`,
      `m.rememberHostLinks(${JSON.stringify(cacheDir)})`,
      'const before = m.recordsWalks()',
      'process.setgid(65534)',
      'process.setuid(65534)',
      'console.log(before, process.geteuid(), m.recordsWalks())',
    ].join(';')
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
      encoding: 'utf8',
    })
    expect(out.trim()).toBe('true 65534 false')
  })
})
