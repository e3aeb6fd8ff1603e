import { execFile } from 'node:child_process'
import { mkdtemp, rm, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'
import { rewriteKeepingIdentity } from '../helpers/same-identity-rewrite.js'
import { connectStdio } from '../helpers/serve-clients.js'
import { skillMd, writeTree } from '../helpers/skill-tree.js'
import { ROOT } from '../helpers/spawn-serve.js'

// Hole 3 of issue 35, end to end as a deployer runs it: `skillhost serve
// --locked` (the built binary) with scripts on, a real MCP client. After the
// catalog is listed, scripts/run.sh is rewritten in place with as many bytes
// and its mtime put back with utimes, so its size, inode and mtime are the
// pinned ones. Before the fix the next load copied the new bytes and the
// script tool ran them; now nothing runs but the pinned bytes.

const bin = join(ROOT, 'dist/cli/main.js')
const PINNED_SH = 'echo pinned-run\n'
const CHANGED_SH = 'echo CHANGED-!!\n'
const T0 = new Date('2020-01-01T00:00:00Z')
const base = await mkdtemp(join(tmpdir(), 'skillhost-lock-identity-'))
afterAll(() => rm(base, { recursive: true, force: true }))

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

function cli(args: string[], cwd: string): Promise<number> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { PATH: process.env.PATH, HOME: base } },
      (err) => resolve(err ? Number((err as { code?: number }).code ?? 1) : 0),
    )
  })
}

describe.skipIf(process.platform !== 'linux')(
  'serve --locked (built binary, real MCP client)',
  () => {
    it('never runs a pinned script rewritten in place with its size, inode and mtime kept', async () => {
      const dir = join(base, 'case')
      await writeTree(dir, {
        'skills/beta/SKILL.md': skillMd('beta'),
        'skills/beta/scripts/run.sh': PINNED_SH,
      })
      await utimes(join(dir, 'skills/beta/scripts/run.sh'), T0, T0)
      expect(await cli(['lock', 'skills'], dir)).toBe(0)
      const { client, stderr } = await connectStdio(
        ['--state-dir', join(dir, 'state'), '--locked', 'skills.lock.json', 'skills'],
        { cwd: dir, home: base, clientName: 'lock-identity-test' },
      )
      const runScript = async (): Promise<string> => {
        const ran = (await client.callTool({
          name: 'run_beta_script',
          arguments: { script: 'scripts/run.sh' },
        })) as CallToolResult
        expect(ran.isError, text(ran)).toBeFalsy()
        const id = /output: (r_[0-9a-f]{16})/.exec(text(ran))?.[1]
        return text(await client.callTool({ name: 'artifact_cat', arguments: { id } }))
      }
      try {
        const listed = JSON.parse(
          text(await client.callTool({ name: 'list_skills', arguments: {} })),
        )
        expect(listed.skills.map((s: { id: string }) => s.id)).toEqual(['beta'])
        // The legitimate run first: the pinned script runs (so the sandbox is on and the test can fail).
        const first = JSON.parse(
          text(await client.callTool({ name: 'load_skill', arguments: { skill: 'beta' } })),
        )
        expect(first.toolsAdded).toContain('run_beta_script')
        expect(await runScript()).toContain('pinned-run')
        await client.callTool({ name: 'unload_skill', arguments: { skill: 'beta' } })

        await rewriteKeepingIdentity(join(dir, 'skills/beta/scripts/run.sh'), CHANGED_SH, T0)
        const loaded = (await client.callTool({
          name: 'load_skill',
          arguments: { skill: 'beta' },
        })) as CallToolResult
        // Refused, or (should a copy be reused) only the pinned bytes run: never the rewrite.
        if (loaded.isError) expect(text(loaded)).toMatch(/^E_SKILL_NOT_PINNED: /)
        else expect(await runScript()).not.toContain('CHANGED')
        expect(loaded.isError).toBe(true)
        await client.callTool({ name: 'refresh_skills', arguments: {} })
        const relisted = JSON.parse(
          text(await client.callTool({ name: 'list_skills', arguments: {} })),
        )
        expect(relisted.skills[0]?.pin?.state).toBe('changed-since-pinned')
        expect(stderr()).not.toContain('CHANGED')
      } finally {
        await client.close()
      }
    })
  },
)
