import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(repo, 'dist/cli/main.js')

let home = ''
let cwd = ''
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'skillhost-noroots-home-'))
  cwd = await mkdtemp(join(tmpdir(), 'skillhost-noroots-cwd-'))
})
afterAll(async () => {
  await rm(home, { recursive: true, force: true })
  await rm(cwd, { recursive: true, force: true })
})

function serve(args: string[] = []) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, 'serve', '--state-dir', join(home, 'state'), ...args],
      { cwd, env: { PATH: process.env.PATH, HOME: home }, timeout: 20_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
    // A server that did start serves stdio until stdin closes.
    child.stdin?.end()
  })
}

describe('serve with no root found', () => {
  it('prints one message naming the places searched and how to add a root, and exits 1', async () => {
    const out = await serve()
    expect(out.code).toBe(1)
    expect(out.stdout).toBe('')
    const lines = out.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(join(cwd, 'skills'))
    expect(lines[0]).toContain(join(home, '.agents', 'skills'))
    expect(lines[0]).toContain('skillhost serve DIR')
    expect(out.stderr).not.toContain('FileSystemSkillSource')
    expect(out.stderr).not.toContain('none found')
  })

  it('serves once one of those places exists', async () => {
    await mkdir(join(home, '.agents', 'skills'), { recursive: true })
    const out = await serve(['--no-scripts'])
    expect(out.stderr).toContain(`roots: ${join(home, '.agents', 'skills')}`)
    expect(out.stderr).toContain('shutdown complete')
    expect(out.code).toBe(0)
  })
})
