import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { listeningUrl, ROOT, type ServeProcess, spawnServe } from './spawn-serve.js'

// Interop (issue 36 item 7): independent clients list, read and verify every
// skill `skillhost serve` serves, over HTTP and stdio. The served skills are
// the examples and one fixture skill holding the bytes text paths lose.

/** The example skills' folder. */
export const EXAMPLES = join(ROOT, 'examples', 'skills')

/** The fixture skill's id. */
export const BYTES_SKILL = 'bytes-fixture'

/** One file the server must serve, with what a verifying client must see. */
export interface ExpectedFile {
  /** `skill://<id>/<path>`, each segment percent-encoded. */
  readonly uri: string
  readonly size: number
  /** `sha256:` + 64 lowercase hex digits of the raw bytes. */
  readonly digest: string
}

/**
 * Writes the fixture skill into a fresh temp root: a file starting with a
 * UTF-8 BOM (CRLF line ends), a Latin-1 file (bytes that are not UTF-8) and
 * an empty file, beside its SKILL.md. Returns the root and its remover.
 */
export function bytesFixtureRoot(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'skillhost-interop-'))
  const dir = join(root, BYTES_SKILL)
  mkdirSync(join(dir, 'references'), { recursive: true })
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: ${BYTES_SKILL}\ndescription: Files whose bytes a text path would change (BOM, Latin-1, empty).\n---\n# Bytes\n\nSee references/.\n`,
  )
  writeFileSync(
    join(dir, 'references', 'bom.md'),
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# BOM first\r\nline two\r\n')]),
  )
  // "café crème" in ISO-8859-1: 0xE9 and 0xE8 alone are not UTF-8.
  writeFileSync(join(dir, 'references', 'latin1.txt'), Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'))
  writeFileSync(join(dir, 'references', 'empty.txt'), Buffer.alloc(0))
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) }
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.isFile() ? [join(dir, d.name)] : [],
  )
}

/**
 * Every file of every skill under `roots`, as the Skills Extension must list
 * it (read from disk here, independently of the server): skill id → files.
 */
export function expectedSkills(roots: readonly string[]): Map<string, ExpectedFile[]> {
  const skills = new Map<string, ExpectedFile[]>()
  for (const root of roots)
    for (const d of readdirSync(root, { withFileTypes: true })) {
      if (!d.isDirectory()) continue
      const dir = join(root, d.name)
      const files = walk(dir)
        .map((file) => {
          const bytes = readFileSync(file)
          const path = relative(dir, file).split('/').map(encodeURIComponent).join('/')
          return {
            uri: `skill://${encodeURIComponent(d.name)}/${path}`,
            size: bytes.length,
            digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
          }
        })
        .sort((a, b) => (a.uri < b.uri ? -1 : 1))
      skills.set(d.name, files)
    }
  return skills
}

/** The `serve` arguments that serve `roots` (no watching: nothing changes during a test). */
export function serveArgs(roots: readonly string[]): string[] {
  return ['--no-watch', ...roots]
}

/** Spawns `skillhost serve --http` (a free port) over `roots`; resolves once it listens. */
export async function serveHttp(
  roots: readonly string[],
): Promise<{ served: ServeProcess; url: URL }> {
  const served = spawnServe(['--http', '0', ...serveArgs(roots)])
  try {
    return { served, url: await listeningUrl(served) }
  } catch (err) {
    served.child.kill('SIGKILL')
    throw err
  }
}

/** Ends a spawned server and waits for it. */
export async function stopServe(served: ServeProcess): Promise<void> {
  if (served.child.exitCode === null && served.child.signalCode === null)
    served.child.kill('SIGTERM')
  await served.exited
}

/** Where an interop client connects: a running HTTP server, or a `serve` it spawns over stdio. */
export type Target = { readonly http: URL } | { readonly stdio: readonly string[] }

/** The bytes on disk of a listed file (`skill://<id>/<path>`) of a skill under one of `roots`. */
export function diskBytes(roots: readonly string[], uri: string): Buffer {
  const [id, ...path] = uri.slice('skill://'.length).split('/').map(decodeURIComponent)
  for (const root of roots) {
    try {
      return readFileSync(join(root, id as string, ...path))
    } catch {}
  }
  throw new Error(`no skill file for ${uri}`)
}

/** How many files `expected` lists over all skills. */
export function fileCount(expected: Map<string, ExpectedFile[]>): number {
  return [...expected.values()].reduce((n, files) => n + files.length, 0)
}

/** What one interop test file serves: the roots, what they should list, and a target per transport. */
export interface InteropServed {
  readonly roots: readonly string[]
  readonly expected: Map<string, ExpectedFile[]>
  /** The file's `serve --http` (started before its tests) or a `serve` of its own over stdio. */
  target(kind: 'http' | 'stdio'): Target
}

/**
 * Serves the examples and the bytes fixture for one test file: `serve --http`
 * started in `beforeAll` (discovery on a loaded machine can outlast the
 * default hook timeout: 120 s) and stopped, with the fixture removed, in
 * `afterAll`. Call at the file's top level.
 */
export function serveForInterop(): InteropServed {
  const fixture = bytesFixtureRoot()
  const roots = [EXAMPLES, fixture.root]
  let http: { served: ServeProcess; url: URL } | undefined
  beforeAll(async () => {
    http = await serveHttp(roots)
  }, 120_000)
  afterAll(async () => {
    if (http) await stopServe(http.served)
    fixture.remove()
  })
  return {
    roots,
    expected: expectedSkills(roots),
    target: (kind) => {
      if (kind === 'stdio') return { stdio: roots }
      if (http === undefined) throw new Error('serve --http has not started (beforeAll)')
      return { http: http.url }
    },
  }
}
