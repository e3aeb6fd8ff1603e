import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'skillhost-api-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function check(report: string) {
  return spawnSync(process.execPath, ['scripts/api-report.mjs', '--check', '--report', report], {
    cwd: root,
    encoding: 'utf8',
  })
}

// The public surface is deliberate: api/report.md lists every exported name
// of every package entry, and changes only on purpose.
describe('api/report.md', () => {
  it('matches what the package entries export', () => {
    const r = check(join(root, 'api/report.md'))
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  }, 60_000)

  // Read from the checked-in report, which the test above proves is what the checker makes
  // now: one TypeScript program per check (about 6 s of CPU), not a third one for this count.
  it('keeps the root entry to what a host needs (at most 100 names) and skillhost/sandbox to what a deployer needs (at most 40)', () => {
    const text = readFileSync(join(root, 'api/report.md'), 'utf8')
    const names = (entry: string) =>
      Number(new RegExp(`^## \`${entry}\` \\((\\d+) names\\)$`, 'm').exec(text)?.[1])
    expect(names('skillhost')).toBeGreaterThan(0)
    expect(names('skillhost')).toBeLessThanOrEqual(100)
    expect(names('skillhost/sandbox')).toBeGreaterThan(0)
    expect(names('skillhost/sandbox')).toBeLessThanOrEqual(40)
  })

  it('fails when the report and the package differ', () => {
    const copy = join(dir, 'report.md')
    copyFileSync(join(root, 'api/report.md'), copy)
    const text = readFileSync(copy, 'utf8')
    writeFileSync(copy, text.replace(/^- `renderError` .*\n/m, ''))
    const r = check(copy)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('out of date')
  }, 60_000)
})
