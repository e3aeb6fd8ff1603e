import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(repo, 'dist/cli/main.js')
const hide = join(repo, 'test/helpers/hide-packages.mjs')

/** Runs node with `hidden` packages unresolvable, as in an app that did not install them. */
function node(args: string[], hidden: string, env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', hide, ...args],
      {
        cwd: repo,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          SKILLHOST_HIDE_PACKAGES: hidden,
          ...env,
        },
      },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

describe('optional packages: commands say which to install', () => {
  it('the hook really hides a package from Node’s resolver', async () => {
    const probe = "import('ai').then(() => console.log('found'), (e) => console.log(e.code))"
    expect((await node(['-e', probe], '')).stdout).toBe('found\n')
    expect((await node(['-e', probe], 'ai')).stdout).toBe('ERR_MODULE_NOT_FOUND\n')
  })

  it('demo --help works without ai', async () => {
    const out = await node([bin, 'demo', '--help'], 'ai')
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(/^Usage: skillhost demo/)
    expect(out.stderr).toBe('')
  })

  it('demo without ai names the package and the command that installs it', async () => {
    const out = await node([bin, 'demo'], 'ai')
    expect(out.code).toBe(1)
    expect(out.stderr).toContain("skillhost demo needs the optional package 'ai'")
    expect(out.stderr).toContain('npm install ai')
    expect(out.stderr).not.toContain('Cannot find package')
    expect(out.stdout).toBe('')
  })

  it('serve --postgres without pg names the package and the command that installs it', async () => {
    const out = await node(
      [
        bin,
        'serve',
        '--http',
        '0',
        '--no-scripts',
        '--postgres',
        'postgresql://u:pw@127.0.0.1:1/db',
        'examples/skills',
      ],
      'pg',
    )
    expect(out.code).toBe(1)
    expect(out.stderr).toContain("skillhost serve --postgres needs the optional package 'pg'")
    expect(out.stderr).toContain('npm install pg')
    expect(out.stderr).not.toContain('Cannot find package')
    expect(out.stderr).not.toContain('pw@')
  })

  it('demo with an API key but no provider package names the provider', async () => {
    const out = await node([bin, 'demo'], '@ai-sdk/openai', { OPENAI_API_KEY: 'sk-test' })
    expect(out.code).toBe(1)
    expect(out.stderr).toContain("needs the optional package '@ai-sdk/openai'")
    expect(out.stderr).toContain('npm install @ai-sdk/openai')
  })

  it('the MCP SDK, a dependency, is loaded only by skillhost/mcp: the root entry works without it', async () => {
    const load = (entry: string) =>
      `import(${JSON.stringify(entry)}).then(() => console.log('ok'), (e) => console.log(e.code))`
    const hidden = '@modelcontextprotocol/sdk'
    expect((await node(['-e', load('skillhost')], hidden)).stdout).toBe('ok\n')
    expect((await node(['-e', load('skillhost/mcp')], hidden)).stdout).toBe(
      'ERR_MODULE_NOT_FOUND\n',
    )
    expect((await node(['-e', load('skillhost/mcp')], '')).stdout).toBe('ok\n')
  })
})
