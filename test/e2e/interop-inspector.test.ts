import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileCount, serveArgs, serveForInterop } from '../helpers/interop.js'
import { ROOT } from '../helpers/spawn-serve.js'

// Issue 36 items 4 and 7: the MCP Inspector's CLI (`--method skills/list
// --verify`: "SEP-2640 conformance and digest checks") passes over every skill
// of the built `skillhost serve`, over HTTP and stdio, in its legacy era
// (2025-11-25) and its modern one (2026-07-28 pinned: no fallback, so it
// connects only to a server that offers 2026-07-28 through server/discover).

const INSPECTOR = join(
  ROOT,
  'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
)
const { roots, expected, target } = serveForInterop()
// The Inspector keeps its catalog and client config under HOME: a private one.
const home = mkdtempSync(join(tmpdir(), 'skillhost-inspector-home-'))
afterAll(() => rmSync(home, { recursive: true, force: true }))

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

function inspect(era: 'legacy' | 'modern', target: readonly string[]): Promise<Run> {
  const args = [INSPECTOR, '--cli', '--method', 'skills/list', '--verify', '--protocol-era', era]
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args, ...target],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: home },
        timeout: 100_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

interface FileReport {
  readonly uri: string
  readonly status: string
  readonly actualDigest: string
  readonly actualSize: number
}
interface SkillReport {
  readonly uri: string
  readonly ok: boolean
  readonly outcome: string
  readonly conformance: unknown[]
  readonly frontmatter: unknown[]
  readonly files: FileReport[]
}

function checkReports(run: Run): void {
  expect(run.code, run.stderr).toBe(0)
  const reports = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as SkillReport)
  expect(reports.map((r) => r.uri).sort()).toEqual(
    [...expected.keys()].map((id) => `skill://${id}/SKILL.md`).sort(),
  )
  for (const report of reports) {
    expect(report, report.uri).toMatchObject({ ok: true, outcome: 'verified', conformance: [] })
    expect(report.frontmatter).toEqual([])
    const id = report.uri.split('/')[2] as string
    const files = report.files
      .map((f) => ({ uri: f.uri, size: f.actualSize, digest: f.actualDigest, status: f.status }))
      .sort((a, b) => (a.uri < b.uri ? -1 : 1))
    expect(files).toEqual((expected.get(id) ?? []).map((f) => ({ ...f, status: 'verified' })))
  }
  expect(reports.flatMap((r) => r.files)).toHaveLength(fileCount(expected))
  expect(run.stderr).toContain(
    `Verified ${expected.size} skills and ${fileCount(expected)} files: no conformance errors.`,
  )
}

describe.each(['legacy', 'modern'] as const)('MCP Inspector --verify, %s era', (era) => {
  it('over Streamable HTTP', { timeout: 120_000 }, async () => {
    checkReports(await inspect(era, [(target('http') as { http: URL }).http.href]))
  })

  it('over stdio', { timeout: 120_000 }, async () => {
    const command = [process.execPath, 'dist/cli/main.js', 'serve', ...serveArgs(roots)]
    checkReports(await inspect(era, ['--cwd', ROOT, ...command]))
  })
})
