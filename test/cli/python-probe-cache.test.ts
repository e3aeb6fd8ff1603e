import { execFile } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/spawn-serve.js'

// Issue 40.12: `skillhost list` asked the PATH's python where it lives on every
// run (a pyenv shim chain is 247 execve). The built binary remembers the answer
// across runs, keyed by the interpreter's path and mtime: a python on PATH that
// counts each time it starts shows how many probes ran.
const python = ['/usr/bin/python3', '/bin/python3'].find((p) => existsSync(p))
const base = mkdtempSync(join(tmpdir(), 'skillhost-probe-cache-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const bin = join(base, 'bin')
mkdirSync(bin)
const counter = join(base, 'starts')
const wrapper = join(bin, 'python3')
writeFileSync(wrapper, `#!/bin/sh\necho started >> ${counter}\nexec ${python} "$@"\n`)
chmodSync(wrapper, 0o755)
const cache = join(base, 'xdg')

function starts(): number {
  return existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').length - 1 : 0
}

function list(env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist/cli/main.js'), 'list', join(ROOT, 'examples/skills')],
      {
        cwd: base,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache, ...env },
      },
      (err) => resolve(err ? 1 : 0),
    )
  })
}

describe.skipIf(python === undefined || process.platform !== 'linux')(
  'the python probe is remembered',
  () => {
    it('a second run asks an unchanged python nothing; a changed mtime asks again', async () => {
      expect(await list()).toBe(0)
      const first = starts()
      // The PATH's python is outside the system folders, so the first run must ask it.
      expect(first).toBeGreaterThanOrEqual(1)
      expect(await list()).toBe(0)
      expect(starts()).toBe(first)
      expect(await list()).toBe(0)
      expect(starts()).toBe(first)
      const later = new Date(Date.now() + 5_000)
      utimesSync(wrapper, later, later)
      expect(await list()).toBe(0)
      expect(starts()).toBe(first + 1)
      expect(await list()).toBe(0)
      expect(starts()).toBe(first + 1)
    }, 120_000)

    it('a wrapper (a pyenv shim) is asked again when PYENV_VERSION or a .python-version changes', async () => {
      const before = starts()
      expect(await list({ PYENV_VERSION: '3.99' })).toBe(0)
      expect(starts()).toBe(before + 1)
      expect(await list({ PYENV_VERSION: '3.99' })).toBe(0)
      expect(starts()).toBe(before + 1)
      writeFileSync(join(base, '.python-version'), '3.98\n')
      expect(await list({ PYENV_VERSION: '3.99' })).toBe(0)
      expect(starts()).toBe(before + 2)
    }, 120_000)

    it('keeps its answers owner-only in the CLI cache folder', () => {
      const dir = join(cache, 'skillhost', 'python-probes')
      expect(statSync(dir).mode & 0o077).toBe(0)
      const entries = readdirSync(dir)
      expect(entries.length).toBeGreaterThan(0)
      for (const name of entries) expect(statSync(join(dir, name)).mode & 0o077).toBe(0)
    })
  },
)
