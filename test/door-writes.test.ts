import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// The one door out (issue 34, item 2; docs/architecture.md "The door"): what
// contained code made reaches a host folder only through src/common/door/.
// A file of src/ that takes a filesystem write API from node:fs is either
// the door or a host-chosen write listed here with why contained code does
// not choose its names; any other fails this test.

const SRC = resolve(import.meta.dirname, '../src')

/** Node filesystem calls that create, change or remove something on disk. */
const WRITE_APIS = new Set(
  [
    'writeFile',
    'appendFile',
    'mkdir',
    'mkdtemp',
    'rename',
    'link',
    'symlink',
    'copyFile',
    'cp',
    'rm',
    'rmdir',
    'unlink',
    'chmod',
    'chown',
    'lchown',
    'truncate',
    'utimes',
    'lutimes',
    'createWriteStream',
  ].flatMap((n) => [n, `${n}Sync`]),
)
/** `open` is a write only with one of these flags. */
const WRITE_FLAGS = /\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b|['"](w|wx|w\+|a|ax|a\+|r\+)['"]/

/** The door itself: every rule of a way out lives here. */
const DOOR = 'common/door/'

/**
 * Host-chosen writes: the host picks every name (an id, a hash, a path the
 * user or deployer gave), contained code never runs or writes there, and
 * what of its output they store reached them through the door first.
 */
const HOST_CHOSEN: Readonly<Record<string, string>> = {
  'common/file-spool-store.ts':
    "the spool: files named by host ids in a folder no grant reaches (own-folders.ts); the bytes are opaque data, a script's changed files judged and read by the door first (read-out.ts, from workspace-call.ts, before spool-script-output.ts stores them)",
  'common/prune-spool-directories.ts': 'removes spool folders the host made',
  'tiers/scripts/sandbox/warm-sandbox.ts':
    "the warm sandbox's control folder: a host-made mkdtemp holding two FIFOs and an exec-only shell copy, bound read-only into the sandbox (no call can write it), removed whole when the sandbox ends",
  'tiers/scripts/sandbox/warm-leftovers.ts':
    "removes a warm control folder a dead host left: a name of the host's own form, this uid's, emptied through its descriptor first (removeBeneath), then its empty entry",
  'tiers/scripts/deps/pip-installer.ts':
    "the interpreter's installer beside the environment cache: a folder named by a hash of the interpreter, the interpreter's own bundled pip unpacked on the host (never in the sandbox), built in a temp folder and renamed into place whole",
  'tiers/scripts/sandbox/host-link-cache.ts':
    "the remembered walk of the host's system folders: one host-named file in a root-owned private folder of the CLI's cache, written by the host from its own walk, never by contained code",
  'cli/lock/lock-command.ts': 'the lockfile writer: a path the user gave, host-computed digests',
  'cli/env/env-command.ts': 'the environment lock writer: a path the user gave, pins pip reported',
  'cli/demo/demo-main.ts': 'the demo: a temp folder of its own, files the demo ships',
  'tiers/scripts/config/create-script-sandbox.ts': 'the sandbox base folder, host-made',
  'tiers/scripts/config/neutral-temp.ts':
    "draws the sandbox base folder's name (mkdtemp), removing a draw that spelt the host's name before any call ran",
  'tiers/scripts/deps/python-view.ts':
    'interpreter shims (pyvenv.cfg, links) under the sandbox base, host-written',
  'tiers/scripts/deps/seed-template.ts':
    "the installer's seed template, inside the installer's temp folder: a venv pip seeds on the host (never in the sandbox) from the interpreter's own bundled wheels, its new files moved into place before the installer is renamed into the cache",
  'tiers/scripts/deps/build-lock.ts': "the environment build's lock folder beside the cache",
  'tiers/scripts/deps/env-build-failure.ts':
    "pip's log of a failed environment build: pip runs on the host, the file is named by the requirement set's key in the env cache's own logs folder",
  'tiers/scripts/policy/python-probe-cache.ts':
    "the CLI's remembered python probes: the host's own probe of the deployer's interpreter, under host-chosen names in the user's cache folder",
  'tiers/scripts/deps/provision-env.ts':
    "the environment cache: folders named by a hash, built by pip on the host (never in the sandbox) from the deployer's index; bound read-only into calls, and no grant reaches it (own-folders.ts), so contained code never writes it",
  'tiers/scripts/sandbox/bubblewrap-handle.ts':
    "the call's scratch folder, host-made and host-named",
  'tiers/scripts/sandbox/unreachable-reads.ts': "empty mount points in the call's scratch",
  'tiers/scripts/skill-copy/directory-skill-copies.ts':
    "skill copies under the sandbox base: a source's files, made before any call, mounted read-only",
  'tiers/scripts/workspace/workspace-folder.ts':
    'makes the private workspace folder; writes inside go through the door (openEntry)',
}

/** Every way out of what contained code made, and the door module each takes it through. */
const WAYS_OUT: Readonly<Record<string, string>> = {
  'tiers/scripts/workspace/workspace-call.ts': 'read-out.js',
  'tiers/scripts/workspace/session-workspace.ts': 'beneath.js',
  'tiers/scripts/workspace/version-control-sweep.ts': 'beneath.js',
  'tiers/scripts/run/open-granted-paths.ts': 'beneath.js',
  'tiers/scripts/policy/permission-grants.ts': 'own-folders.js',
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  )
}

/** The write APIs `text` takes from node:fs (or `open` with a write flag); `*` for a namespace or default import. */
function writeApis(text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(
    /import\s+(type\s+)?([^;'"]*?)\s+from\s+'(?:node:)?fs(?:\/promises)?'/g,
  )) {
    if (m[1] !== undefined) continue
    const spec = (m[2] as string).trim()
    if (!spec.startsWith('{')) {
      found.push('*')
      continue
    }
    for (const raw of spec.replace(/[{}]/g, '').split(',')) {
      const name = raw.trim().split(/\s+as\s+/)[0] as string
      if (name === '' || name.startsWith('type ')) continue
      if (WRITE_APIS.has(name)) found.push(name)
      if ((name === 'open' || name === 'openSync') && WRITE_FLAGS.test(text)) found.push(name)
    }
  }
  return found
}

const files = sources(SRC).map((f) => relative(SRC, f))
const writers = new Map(
  files.flatMap((f) => {
    const apis = writeApis(readFileSync(join(SRC, f), 'utf8'))
    return apis.length > 0 ? [[f, apis] as const] : []
  }),
)

describe('one door out', () => {
  it('finds writes: write APIs, open with write flags, namespace imports; not reads or types', () => {
    expect(writeApis("import { writeFile, readFile } from 'node:fs/promises'")).toEqual([
      'writeFile',
    ])
    expect(writeApis("import {\n  lstat,\n  mkdir as md,\n} from 'fs'")).toEqual(['mkdir'])
    expect(writeApis("import * as fs from 'node:fs'")).toEqual(['*'])
    expect(
      writeApis("import { open } from 'node:fs/promises'\nopen(p, constants.O_WRONLY)"),
    ).toEqual(['open'])
    expect(writeApis("import { open } from 'node:fs/promises'\nopen(p, 'r')")).toEqual([])
    expect(writeApis("import type { Stats } from 'node:fs'")).toEqual([])
  })

  it('no file of src/ writes to disk outside the door and the host-chosen list', () => {
    const outside = [...writers.entries()]
      .filter(([f]) => !f.startsWith(DOOR) && HOST_CHOSEN[f] === undefined)
      .map(([f, apis]) => `${f}: ${apis.join(', ')}`)
    expect(outside).toEqual([])
  })

  it('every listed host-chosen writer still writes (the list stays true)', () => {
    const stale = Object.keys(HOST_CHOSEN).filter((f) => !writers.has(f))
    expect(stale).toEqual([])
  })

  it('the copy-back of `skillhost run` and the workspace writes take no write API of their own', () => {
    for (const f of [
      'cli/run/run-user-files.ts',
      'tiers/scripts/workspace/session-workspace.ts',
      'tiers/scripts/workspace/version-control-sweep.ts',
      'tiers/scripts/run/open-granted-paths.ts',
    ])
      expect(writers.get(f), f).toBeUndefined()
  })

  it('every way out of contained output takes its rules from the door', () => {
    for (const [f, door] of Object.entries(WAYS_OUT)) {
      const text = readFileSync(join(SRC, f), 'utf8')
      const from = new RegExp(`from '(\\.\\.?/)+(common/door/)?${door.replace('.', '\\.')}'`)
      expect(text, f).toMatch(from)
      expect(writers.get(f), f).toBeUndefined()
    }
  })
})
