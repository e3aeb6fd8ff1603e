import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { LIST_WIDTH } from '../../src/cli/list/list-command.js'
import type { CliIo } from '../../src/cli/shared/cli-command.js'
import { cutToWidth, textWidth } from '../../src/cli/shared/text-width.js'
import { escapeControls } from '../../src/common/escape-text.js'

const examples = fileURLToPath(new URL('../../examples/skills', import.meta.url))

/** `main` with stdout escaped as the binary does, and stdout a terminal of `columns` when given. */
async function cli(argv: string[], columns?: number): Promise<{ code: number; stdout: string }> {
  const out: string[] = []
  const io: CliIo = {
    stdout: (t) => void out.push(escapeControls(t)),
    stderr: () => undefined,
    ...(columns !== undefined && { columns }),
  }
  const code = await main(argv, io)
  return { code, stdout: out.join('') }
}

/** No lone surrogate (a pair is one code point under the u flag). */
const wellFormed = (text: string): boolean => !/\p{Cs}/u.test(text)

type Tools = { module: string[]; isolated: string[]; scripts: string[]; undeclared: string[] }
type Row = { id: string; description: string; tools?: Tools; unavailableTools?: { name: string }[] }

async function listJson(...args: string[]): Promise<Map<string, Row>> {
  const r = await cli(['list', '--json', ...args])
  expect(r.code).toBe(0)
  const { skills } = JSON.parse(r.stdout) as { skills: Row[] }
  return new Map(skills.map((s) => [s.id, s]))
}

let tmp = ''
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-list-tools-'))
  const put = async (name: string, description: string, files: Record<string, string> = {}) => {
    await mkdir(join(tmp, name), { recursive: true })
    await writeFile(
      join(tmp, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`,
    )
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(tmp, name, path, '..'), { recursive: true })
      await writeFile(join(tmp, name, path), text)
    }
  }
  await put('wide', `漢字のスキル説明 ${'全角文字がたくさん並ぶ説明文です。'.repeat(4)}`)
  await put('emoji', `${'👍🏽 thumbs, 👨‍👩‍👧 family, e\u0301 accents; '.repeat(5)}`)
  await put('controls', `Clears\u001b[2J the screen and rings\u0007 ${'bells '.repeat(20)}`)
  // A shebang in a file no extension names: run_<skill>_script is offered.
  await put('shebang', 'Ships one extensionless script.', { 'bin/tool': '#!/bin/sh\necho hi\n' })
  await put('docs-only', 'Ships only notes.', { 'notes.md': '# notes\n', 'data.txt': 'x' })
  await put('py-tool', 'Ships one declared python script.', {
    'scripts/hello.py': 'print("hi")\n',
    'skillhost.yaml':
      'scripts:\n  - name: hello\n    path: scripts/hello.py\n    description: Say hi.\n    interpreter: python3\n',
  })
  // A permission request as Codex writes one: paths with a space are quoted, one with a line break is refused.
  await put('asks', 'Requests access.', {
    'scripts/go.sh': 'echo go\n',
    'agents/openai.yaml':
      'permissions:\n  network: true\n  file_system:\n    read: ["/srv/my data"]\n    write: ["/srv/drop zone", "/srv/x\\nlisted: forged"]\n',
  })
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe('skillhost list: permission requests (issue 24)', () => {
  it('--json carries the request as written; the text names it on one line, quoted, never as a grant', async () => {
    const rows = (await listJson(tmp)) as Map<string, Row & { permissions?: unknown }>
    expect(rows.get('asks')?.permissions).toEqual({
      network: true,
      read: ['/srv/my data'],
      // A path with a control character is not requested (a warning says so).
      write: ['/srv/drop zone'],
    })
    expect(rows.get('py-tool')?.permissions).toBeUndefined()
    const { stdout } = await cli(['list', tmp], 200)
    const line = stdout.split('\n').find((l) => l.startsWith('requests asks:'))
    expect(line).toBe(
      'requests asks: network (never granted); read "/srv/my data"; write "/srv/drop zone" (granted at load only within serve\'s policy, once approved)',
    )
    expect(stdout).not.toMatch(/^listed: forged/m)
  })
})

describe('skillhost list --json: the interpreter each script runs with (issue 23)', () => {
  it('names the interpreter, its program and, for python, its version; --interpreter wins', async () => {
    const rows = (await listJson(tmp)) as Map<
      string,
      Row & { interpreters?: Record<string, unknown> }
    >
    const ran = rows.get('py-tool')?.interpreters?.run_py_tool_hello as {
      name: string
      program: string
      version?: string
    }
    expect(ran.name).toBe('python3')
    expect(ran.program).toMatch(/^\/.*python/)
    expect(ran.version).toMatch(/^3\.\d+\.\d+$/)
    const chosen = await listJson('--interpreter', 'python3=/usr/bin/python3', tmp)
    expect(
      (chosen.get('py-tool') as Row & { interpreters: Record<string, { program: string }> })
        .interpreters.run_py_tool_hello?.program,
    ).toBe('/usr/bin/python3')
  })

  it('names what run_<skill>_script would run undeclared scripts with (issue 37.4)', async () => {
    type Seen = Row & { undeclaredInterpreters?: { name: string; program?: string }[] }
    const rows = (await listJson(tmp)) as Map<string, Seen>
    // A shebang file with no extension: sh, by its program.
    expect(rows.get('shebang')?.undeclaredInterpreters).toEqual([
      expect.objectContaining({ name: 'sh', program: expect.stringMatching(/^\/.*sh$/) }),
    ])
    // py-tool's one python file runs undeclared too, with the python its declared tool names.
    const py = rows.get('py-tool')!
    const declared = (py as Seen & { interpreters: Record<string, unknown> }).interpreters
      .run_py_tool_hello
    expect(py.undeclaredInterpreters).toEqual([declared])
    expect(rows.get('docs-only')?.undeclaredInterpreters).toEqual([])
  })
})

describe('skillhost list: tools by tier (issue 12 item 9)', () => {
  it('--json names the tools serve would offer: module, isolated, declared and undeclared scripts', async () => {
    const rows = await listJson(examples)
    expect(rows.get('word-count')?.tools).toEqual({
      module: [],
      isolated: [],
      scripts: ['run_word_count_count'],
      undeclared: ['run_word_count_script'],
    })
    expect(rows.get('json-tools')?.tools).toMatchObject({ isolated: ['json_diff', 'json_stats'] })
    expect(rows.get('form-fill')?.tools).toMatchObject({
      scripts: [],
      undeclared: ['run_form_fill_script'],
    })
    expect(rows.get('commit-messages')?.tools).toEqual({
      module: [],
      isolated: [],
      scripts: [],
      undeclared: [],
    })
    // Imports off: the module is unavailable, not offered.
    expect(rows.get('unit-convert')?.tools?.module).toEqual([])
    expect(rows.get('unit-convert')?.unavailableTools?.map((t) => t.name)).toEqual([
      'module:tools.mjs',
    ])
  })

  it('answers for serve’s flags: --import-modules, --no-undeclared-scripts, --no-scripts', async () => {
    const imports = await listJson('--import-modules', examples)
    expect(imports.get('unit-convert')?.tools?.module).toEqual(['module:tools.mjs'])
    expect(imports.get('unit-convert')?.unavailableTools).toEqual([])
    const declaredOnly = await listJson('--no-undeclared-scripts', examples)
    expect(declaredOnly.get('word-count')?.tools).toMatchObject({
      scripts: ['run_word_count_count'],
      undeclared: [],
    })
    // Every script it ships is declared: nothing is withheld from it.
    expect(declaredOnly.get('word-count')?.unavailableTools).toEqual([])
    const off = await listJson('--no-scripts', examples)
    expect(off.get('word-count')?.tools).toMatchObject({ scripts: [], undeclared: [] })
    expect(off.get('word-count')?.unavailableTools?.map((t) => t.name)).toEqual([
      'run_word_count_count',
    ])
    // Isolated tools are always on in serve.
    expect(off.get('json-tools')?.tools?.isolated).toEqual(['json_diff', 'json_stats'])
  })

  it('the undeclared-script tool follows the forge’s rule: a shebang counts, notes do not', async () => {
    const rows = await listJson(tmp)
    expect(rows.get('shebang')?.tools?.undeclared).toEqual(['run_shebang_script'])
    expect(rows.get('docs-only')?.tools?.undeclared).toEqual([])
    // Denied (serve --no-undeclared-scripts), the skill says why it gets no tool (issue 37.6).
    const denied = await listJson('--no-undeclared-scripts', tmp)
    expect(denied.get('shebang')?.unavailableTools).toEqual([
      expect.objectContaining({ name: 'run_shebang_script', reason: 'undeclared-off' }),
    ])
    expect(denied.get('docs-only')?.unavailableTools).toEqual([])
  })

  it('the table has a TOOLS column with a legend', async () => {
    // A wide terminal has room for PATH (at 80 columns it is left out: see below).
    const r = await cli(['list', examples], 200)
    expect(r.stdout).toMatch(/^ID\s+STATUS\s+PATH\s+TOOLS\s+DESCRIPTION$/m)
    expect(r.stdout).toMatch(/^word-count\s+active\s+\S+\s+1s u\s+Count/m)
    expect(r.stdout).toMatch(/^json-tools\s+active\s+\S+\s+2i u\s+Compare/m)
    expect(r.stdout).toMatch(/^commit-messages\s+active\s+\S+\s+-\s+Write/m)
    expect(r.stdout).toContain(
      'TOOLS: m module, i isolated, s declared scripts, u run_<skill>_script',
    )
    const imports = await cli(['list', '--import-modules', examples], 200)
    expect(imports.stdout).toMatch(/^unit-convert\s+active\S*( \(\d warnings?\))?\s+\S+\s+1m u\s/m)
  })
})

describe('skillhost list fits the terminal (issue 12 item 9)', () => {
  const tableLines = (stdout: string): string[] =>
    stdout.split('\n').slice(
      0,
      stdout.split('\n').findIndex((l) => l.startsWith('TOOLS:')),
    )

  it.each([80, 100, 140])(
    'every table line fits %i columns; descriptions are cut with …',
    async (columns) => {
      const r = await cli(['list', examples, tmp], columns)
      const lines = tableLines(r.stdout)
      expect(lines.length).toBeGreaterThan(8)
      for (const line of lines) {
        expect(textWidth(line), line).toBeLessThanOrEqual(columns)
        expect(wellFormed(line), line).toBe(true)
      }
      expect(lines.some((l) => l.endsWith('…'))).toBe(true)
      // Too little room: paths lose their start, never the skill folder's name;
      // with less still, the PATH column is left out, and the legend says so.
      if (columns === 100)
        expect(lines.find((l) => l.startsWith('word-count'))).toMatch(/ (\S*\/)?…\/word-count /)
      if (columns === 80) {
        expect(lines[0]).toMatch(/^ID\s+STATUS\s+TOOLS\s+DESCRIPTION$/)
        expect(r.stdout).toContain('PATH left out to fit 80 columns.')
      }
      // The escapes of control characters are cut whole, never in half.
      const controls = lines.find((l) => l.startsWith('controls'))!
      expect(controls).not.toMatch(/\\u[0-9a-f]{0,3}…$/)
      expect(controls).not.toMatch(/\\u[0-9a-f]{0,3}(?![0-9a-f])/)
    },
  )

  it('a narrow terminal still shows a stub of each description', async () => {
    const r = await cli(['list', examples], 20)
    const line = tableLines(r.stdout).find((l) => l.startsWith('word-count'))!
    expect(line).toMatch(/ Count lines…$/)
  })

  it(`not a terminal: rows fit ${LIST_WIDTH} columns; --json has descriptions whole`, async () => {
    const r = await cli(['list', examples, tmp])
    const wide = tableLines(r.stdout).find((l) => l.startsWith('wide'))!
    expect(textWidth(wide)).toBeLessThanOrEqual(LIST_WIDTH)
    // Cut at the column budget: within a wide character (2 columns) and the … of it.
    expect(textWidth(wide)).toBeGreaterThan(LIST_WIDTH - 3)
    expect(wide.endsWith('…')).toBe(true)
    const json = await listJson(examples, tmp)
    expect(json.get('wide')?.description).toMatch(/説明文です。$/)
    expect(json.get('emoji')?.description.length).toBeGreaterThan(150)
    // Whole even when stdout is a narrow terminal.
    const narrow = await cli(['list', '--json', tmp], 30)
    const rows = (JSON.parse(narrow.stdout) as { skills: Row[] }).skills
    expect(rows.find((s) => s.id === 'wide')?.description).toMatch(/説明文です。$/)
  })
})

describe('text width', () => {
  it('counts wide characters as 2, combining marks as 0, emoji as 2', () => {
    expect(textWidth('abc')).toBe(3)
    expect(textWidth('漢字')).toBe(4)
    expect(textWidth('ｱｲ全角')).toBe(6) // halfwidth katakana 1 each, CJK 2 each
    expect(textWidth('e\u0301')).toBe(1)
    expect(textWidth('👍🏽')).toBe(2)
    expect(textWidth('👨‍👩‍👧')).toBe(2)
    expect(textWidth('❤️')).toBe(2)
  })

  it('never splits a surrogate pair, a grapheme or a printed escape', () => {
    const text = '👍🏽a👨‍👩‍👧b漢e\u0301\\u001bc'
    for (let w = 0; w <= textWidth(text) + 1; w++) {
      const cut = cutToWidth(text, w)
      expect(wellFormed(cut), `width ${w}`).toBe(true)
      expect(textWidth(cut), `width ${w}`).toBeLessThanOrEqual(w)
      const kept = cut.endsWith('…') ? cut.slice(0, -1) : cut
      expect(text.startsWith(kept), `width ${w}: ${cut}`).toBe(true)
      // No half of a family, an accent without its base, nor a broken \u001b.
      expect(kept).not.toMatch(/\u200d$|👨$|\\u0{0,2}$|\\u001$/)
      expect(kept.endsWith('漢e')).toBe(false)
    }
    expect(cutToWidth('abc', 3)).toBe('abc')
    expect(cutToWidth('abcd', 3)).toBe('ab…')
  })
})
