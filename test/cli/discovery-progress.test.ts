import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { createServeRuntime } from '../../src/cli/serve/serve-runtime.js'
import type { CliIo } from '../../src/cli/shared/cli-command.js'
import { CLEAR_LINE, discoveryProgress } from '../../src/cli/shared/discovery-progress.js'
import { escapeControls } from '../../src/common/escape-text.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import type { DiscoveryProgress } from '../../src/sources/types.js'

const examples = fileURLToPath(new URL('../../examples/skills', import.meta.url))

/**
 * An io whose stderr is a fake terminal: text goes through the escaping the
 * binary applies, `clearLine` writes the one raw control. The clock moves
 * `step` ms each time it is read, so a walk is as slow as a test says,
 * without wall-clock time.
 */
function fakeTerminal(step: number, options: { tty?: boolean } = {}) {
  const stderr: string[] = []
  const stdout: string[] = []
  let clears = 0
  let t = 0
  const io: CliIo = {
    stdout: (text) => void stdout.push(escapeControls(text)),
    stderr: (text) => void stderr.push(escapeControls(text)),
    ...(options.tty !== false && {
      terminal: {
        clearLine: () => {
          clears++
          stderr.push(CLEAR_LINE)
        },
        now: () => {
          t += step
          return t
        },
        progressDelayMs: 1000,
      },
    }),
  }
  return {
    io,
    stderr: () => stderr.join(''),
    stdout: () => stdout.join(''),
    clears: () => clears,
  }
}

let tmp = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-progress-'))
  for (const name of ['alpha', 'beta', 'gamma']) {
    await mkdir(join(tmp, 'nested', name), { recursive: true })
    await writeFile(
      join(tmp, 'nested', name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\n`,
    )
  }
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe('discovery progress hook (DiscoverOptions.onProgress)', () => {
  it.each(['sync', 'async'] as const)(
    'reports running totals and ends with the walk’s totals (%s driver)',
    async (discoveryIo) => {
      const seen: DiscoveryProgress[] = []
      const source = new FileSystemSkillSource({ roots: [tmp, examples], discoveryIo })
      const ids: string[] = []
      for await (const s of source.discover({ onProgress: (p) => seen.push(p) })) ids.push(s.id)
      expect(ids).toHaveLength(8)
      // tmp, nested, 3 skills; examples and its 5 skills.
      expect(seen.at(-1)).toEqual({ folders: 11, skills: 8 })
      for (let i = 1; i < seen.length; i++) {
        expect(seen[i]!.folders).toBeGreaterThanOrEqual(seen[i - 1]!.folders)
        expect(seen[i]!.skills).toBeGreaterThanOrEqual(seen[i - 1]!.skills)
      }
    },
  )
})

describe('the progress line (issue 12 item 5)', () => {
  it('draws nothing while the walk is faster than the delay', () => {
    const term = fakeTerminal(0)
    const line = discoveryProgress(term.io, 'skillhost list')
    const hook = line.walk()
    for (let i = 0; i < 50; i++) hook({ folders: i, skills: i })
    line.done()
    expect(term.stderr()).toBe('')
  })

  it('draws nothing when stderr is not a terminal, however slow the walk', () => {
    const term = fakeTerminal(5000, { tty: false })
    const line = discoveryProgress(term.io, 'skillhost list')
    line.walk()({ folders: 10, skills: 2 })
    line.done()
    expect(term.stderr()).toBe('')
  })

  it('past the delay, overwrites one line with the totals of every walk and ends with a newline', () => {
    const term = fakeTerminal(1200)
    const line = discoveryProgress(term.io, 'skillhost list')
    const first = line.walk()
    const second = line.walk()
    first({ folders: 10, skills: 1 }) // read at 2400, 1200 ms after the start: past the delay
    second({ folders: 5, skills: 2 })
    first({ folders: 20, skills: 3 })
    line.done()
    const out = term.stderr()
    const draws = out.split(CLEAR_LINE).slice(1)
    expect(draws).toEqual([
      'skillhost list: searching… 10 folders, 1 skill',
      'skillhost list: searching… 15 folders, 3 skills',
      'skillhost list: searching… 25 folders, 5 skills',
      expect.stringMatching(/^skillhost list: searched 25 folders, found 5 skills in \d+\.\d s\n$/),
    ])
    // One line: no newline until the end, and the only raw control is clearLine's.
    expect(out.indexOf('\n')).toBe(out.length - 1)
    expect(out.replaceAll(CLEAR_LINE, '')).toBe(escapeControls(out.replaceAll(CLEAR_LINE, '')))
    // done() twice ends the line once.
    line.done()
    expect(term.stderr()).toBe(out)
  })

  it('redraws at most every 100 ms', () => {
    const term = fakeTerminal(10)
    const line = discoveryProgress(term.io, 'x')
    const hook = line.walk()
    for (let i = 0; i < 300; i++) hook({ folders: i, skills: 0 })
    // 300 calls × 2 clock reads × 10 ms: past the delay after ~50 calls, then one draw per 100 ms.
    expect(term.clears()).toBeGreaterThan(5)
    expect(term.clears()).toBeLessThan(40)
  })
})

describe('CLI commands show progress on a terminal only when the walk is slow', () => {
  it.each(['list', 'validate', 'prompt'])('%s: a slow walk on a terminal', async (name) => {
    const term = fakeTerminal(2000)
    const code = await main([name, '--no-default-roots', '--root', tmp], term.io)
    expect(code, term.stderr()).toBe(0)
    const err = term.stderr()
    expect(err).toContain(`${CLEAR_LINE}skillhost ${name}: searching… `)
    expect(err).toMatch(
      new RegExp(
        `${CLEAR_LINE}skillhost ${name}: searched 5 folders, found 3 skills in [\\d.]+ s\\n`,
      ),
    )
    // Progress never reaches stdout.
    expect(term.stdout()).not.toContain('searching')
  })

  it.each(['list', 'validate', 'prompt'])(
    '%s: nothing when the walk is fast, or stderr is no terminal',
    async (name) => {
      for (const term of [fakeTerminal(0), fakeTerminal(2000, { tty: false })]) {
        const code = await main([name, '--no-default-roots', '--root', tmp], term.io)
        expect(code).toBe(0)
        expect(term.stderr()).toBe('')
        expect(term.clears()).toBe(0)
      }
    },
  )
})

describe('serve logs its discovery', () => {
  it('one line per manager: skills found, skipped ones, and the time taken', async () => {
    const state = await mkdtemp(join(tmpdir(), 'skillhost-progress-serve-'))
    const broken = join(tmp, 'broken-root')
    await mkdir(join(broken, 'broken'), { recursive: true })
    await writeFile(
      join(broken, 'broken/SKILL.md'),
      '---\nname: broken\ndescription: [not valid YAML\n---\nbody\n',
    )
    const lines: string[] = []
    const runtime = await createServeRuntime({
      roots: [examples, broken],
      stateDir: state,
      importModules: false,
      scripts: false,
      gate: async () => undefined,
      log: (line) => void lines.push(line),
    })
    try {
      const manager = await runtime.createManager()
      await manager.dispose()
      expect(lines.filter((l) => l.startsWith('session catalog:'))).toEqual([
        expect.stringMatching(/^session catalog: 5 skills, 1 skipped \(ready in \d+ ms\)$/),
      ])
      // One discovery, one discovery time (issue 26.6): the manager's line is not another.
      expect(lines.filter((l) => /^discover/.test(l))).toEqual([
        expect.stringMatching(/^discovered 5 skills in \d+ ms \(2 problems reported\)$/),
      ])
    } finally {
      await runtime.dispose()
      await rm(state, { recursive: true, force: true })
    }
  })
})
