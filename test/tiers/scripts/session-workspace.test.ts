import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SkillHostError } from '../../../src/common/errors.js'
import { MemorySpoolStore } from '../../../src/common/memory-spool-store.js'
import type { TurnContext } from '../../../src/common/turn-context.js'
import { forgeSkillTools } from '../../../src/lifecycle-tools.js'
import { createSkillManager } from '../../../src/manager/index.js'
import type { SkillManager } from '../../../src/manager/types.js'
import { FileSystemSkillSource } from '../../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../../src/tiers/scripts/index.js'
import { SessionWorkspace } from '../../../src/tiers/scripts/workspace/session-workspace.js'
import { codeOf } from '../../helpers/error-code.js'

const linux = process.platform === 'linux'
const base = mkdtempSync(join(tmpdir(), 'skillhost-session-ws-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

function skill(id: string, files: Record<string, string>): string {
  const dir = join(base, 'skills', id)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

skill('doc-tool', {
  'SKILL.md':
    '---\nname: doc-tool\ndescription: Extract and fill fields of a document.\n---\nRun `python scripts/extract.py input.txt fields.json`.\n',
  // A sibling module, imported the way real skills do (sys.path[0] is the script's folder).
  'scripts/common.py':
    'def fields(text):\n    return [l.split(":")[0] for l in text.splitlines() if ":" in l]\n',
  'scripts/extract.py':
    'import json, sys\nfrom common import fields\nsrc, out = sys.argv[1], sys.argv[2]\nwith open(src) as f:\n    names = fields(f.read())\nwith open(out, "w") as f:\n    json.dump(names, f)\nprint("extracted", len(names), "fields to", out)\n',
  'scripts/fill.py':
    'import json, sys\nvalues = json.load(open(sys.argv[1]))\nopen(sys.argv[2], "w").write("\\n".join(f"{k}: {v}" for k, v in values.items()))\nprint("filled", sys.argv[2])\n',
  // Real skills also import their own package from the skill root (`from scripts.x import`).
  'scripts/__init__.py': '',
  'scripts/pkg_import.py':
    'from scripts.common import fields\nprint("package import:", fields("a: 1"))\n',
  'scripts/echo_args.sh': '#!/bin/sh\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\n',
  'scripts/fail.py':
    'import sys\nprint("partial out")\nsys.stderr.write("line 1\\nTraceback: boom at the end\\n")\nsys.exit(2)\n',
  'scripts/fail_quietly.py': 'import sys\nprint("Invalid: no SKILL.md here")\nsys.exit(1)\n',
  'scripts/plant.sh':
    '#!/bin/sh\nln -s /etc/hostname link.txt\nmkdir -p d && ln -s / d/up\necho planted\n',
  'scripts/grow.sh':
    '#!/bin/sh\nfor i in $(seq 1 40); do head -c 1048576 /dev/zero > "blob$i"; sleep 0.05; done\necho grew\n',
  // Watches for note.txt for 3 s after announcing it has started.
  'scripts/slow_check.sh':
    '#!/bin/sh\ntouch started\nfor i in $(seq 1 30); do if [ -e note.txt ]; then echo "saw note"; exit 0; fi; sleep 0.1; done\necho "no note"\n',
  'scripts/tool.rb': '#!/usr/bin/env ruby\nputs 1\n',
  'forms.md': '# Forms\n',
})
skill('other', {
  'SKILL.md': '---\nname: other\ndescription: Reads what another skill wrote.\n---\nbody\n',
  'read.sh': '#!/bin/sh\ncat fields.json\n',
})

describe.skipIf(!linux)('session workspace and undeclared scripts (real bubblewrap)', () => {
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
  })
  afterAll(async () => sandbox?.dispose())

  async function manager(
    extra: Record<string, unknown> = {},
    config: Record<string, unknown> = {},
  ): Promise<SkillManager> {
    return createSkillManager({
      ...config,
      sources: [new FileSystemSkillSource({ roots: [join(base, 'skills')] })],
      gate: async () => undefined,
      scripts: { ...sandbox.config, undeclared: 'allow', ...extra },
    })
  }
  const call = async (ctx: TurnContext, name: string, args: unknown) =>
    String(await ctx.tools.get(name)!.execute(args, ctx))
  const exec = (ctx: TurnContext, name: string, args: unknown) =>
    ctx.tools.get(name)!.execute(args, ctx)
  const fail = async (ctx: TurnContext, name: string, args: unknown) =>
    (await ctx.tools
      .get(name)!
      .execute(args, ctx)
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as SkillHostError

  it('runs an undeclared script on a user file, with sibling imports, outputs spooled and kept across calls and skills', async () => {
    await using m = await manager()
    const ctx = m.createTurnContext()
    for (const t of forgeSkillTools(m)) ctx.tools.register(t)
    await m.workspace!.put('input.txt', 'name: Ada\nemail: ada@example.org\n')
    const loaded = await m.load('doc-tool', ctx)
    expect(loaded.tools).toContain('run_doc_tool_script')
    const tool = ctx.tools.get('run_doc_tool_script')!
    expect(tool.description).toContain('scripts/extract.py')
    expect(tool.description).not.toContain('tool.rb')

    const out = await call(ctx, 'run_doc_tool_script', {
      script: 'scripts/extract.py',
      args: ['input.txt', 'fields.json'],
    })
    expect(out).toMatch(/^exit code 0; /)
    expect(out).toContain('extracted 2 fields to fields.json')
    expect(out).toMatch(/created fields\.json \(\d+ bytes\), copy: r_[0-9a-f]{16}/)
    const copyId = /created fields\.json \(\d+ bytes\), copy: (r_[0-9a-f]{16})/.exec(out)![1]!
    expect(JSON.parse(new TextDecoder().decode(await ctx.spool.get(copyId)))).toEqual([
      'name',
      'email',
    ])
    expect(await ctx.spool.stat(copyId)).toMatchObject({
      trusted: false,
      provenance: { skill: 'doc-tool' },
    })

    // The model writes the values, then fills: files persist between calls.
    expect(
      await call(ctx, 'workspace_write', { path: 'values.json', content: '{"name":"Ada"}' }),
    ).toBe('wrote /work/values.json (14 bytes)')
    const filled = await call(ctx, 'run_doc_tool_script', {
      script: 'scripts/fill.py',
      args: ['values.json', 'out/filled.txt'],
    }).catch((e: SkillHostError) => e.message)
    // out/ does not exist yet: python fails, and the failure shows the end of stderr inline.
    expect(filled).toMatch(/exited with code 1/)
    expect(filled).toContain('FileNotFoundError')
    await m.workspace!.put('out/.keep', '')
    const ok = await call(ctx, 'run_doc_tool_script', {
      script: 'scripts/fill.py',
      args: ['values.json', 'out/filled.txt'],
    })
    expect(ok).toContain('created out/filled.txt')
    expect(new TextDecoder().decode(await m.workspace!.get('out/filled.txt'))).toBe('name: Ada')
    expect(
      JSON.parse(await call(ctx, 'workspace_list', {})).files.map((f: { path: string }) => f.path),
    ).toEqual(['fields.json', 'input.txt', 'out', 'out/.keep', 'out/filled.txt', 'values.json'])

    // Another skill of the same conversation sees the same workspace.
    await m.load('other', ctx)
    expect(await call(ctx, 'run_other_script', { script: 'read.sh' })).toContain(
      '["name", "email"]',
    )

    // Unloading takes the tool away; the spooled copy stays readable, even after the workspace is gone.
    await m.unload('doc-tool', ctx)
    expect(ctx.tools.get('run_doc_tool_script')).toBeUndefined()
    const dir = await m.workspace!.path()
    await m.dispose()
    expect(existsSync(dir)).toBe(false)
    expect(new TextDecoder().decode(await ctx.spool.get(copyId))).toContain('email')
  })

  it('passes each arg as one literal argv element, and refuses NUL, oversize args and paths outside the skill', async () => {
    await using m = await manager()
    const ctx = m.createTurnContext()
    await m.load('doc-tool', ctx)
    const out = await call(ctx, 'run_doc_tool_script', {
      script: 'scripts/echo_args.sh',
      args: ['a b', '$(id)', '*', '--flag', "it's"],
    })
    expect(out).toContain("[a b]\n[$(id)]\n[*]\n[--flag]\n[it's]")
    expect(await call(ctx, 'run_doc_tool_script', { script: 'scripts/pkg_import.py' })).toContain(
      "package import: ['a']",
    )
    // Instructions often drop the extension: the one runnable file it names is meant.
    expect(
      await call(ctx, 'run_doc_tool_script', { script: 'scripts/echo_args', args: ['x'] }),
    ).toContain('[x]')
    const bad = [
      [{ script: 'scripts/echo_args.sh', args: ['a\0b'] }, 'E_SKILL_SCRIPT_INVALID_ARGS'],
      [{ script: 'scripts/echo_args.sh', args: Array(257).fill('x') }, 'E_TOOL_INVALID_ARGS'],
      [
        { script: 'scripts/echo_args.sh', args: Array(9).fill('y'.repeat(32 * 1024)) },
        'E_SKILL_SCRIPT_INVALID_ARGS',
      ],
      [{ script: '../other/read.sh' }, 'E_SKILL_SOURCE_PATH_REJECTED'],
      [{ script: '/etc/passwd' }, 'E_SKILL_SOURCE_PATH_REJECTED'],
      [{ script: 'forms.md' }, 'E_SKILL_SCRIPT_INVALID_ARGS'],
      [{ script: 'scripts/nope.py' }, 'E_SKILL_SCRIPT_INVALID_ARGS'],
    ] as const
    for (const [args, code] of bad) {
      expect(
        await codeOf(exec(ctx, 'run_doc_tool_script', args)),
        JSON.stringify(args).slice(0, 80),
      ).toBe(code)
    }
    // A script that reports its error on stdout: the failure shows that instead.
    const quiet = await fail(ctx, 'run_doc_tool_script', { script: 'scripts/fail_quietly.py' })
    expect(quiet.code).toBe('E_SKILL_SCRIPT_FAILED')
    expect(quiet.message).toContain(
      '--- end of stdout (script output) ---\nInvalid: no SKILL.md here',
    )
    const ruby = await fail(ctx, 'run_doc_tool_script', { script: 'scripts/tool.rb' })
    expect(ruby.code).toBe('E_SKILL_SCRIPT_INVALID_ARGS')
    expect(ruby.message).toContain("needs the interpreter 'ruby', which this host does not allow")
    // Still usable after the refusals.
    expect(
      await call(ctx, 'run_doc_tool_script', { script: 'scripts/echo_args.sh', args: ['ok'] }),
    ).toContain('[ok]')
  })

  it('is off by default: without undeclared: allow a skill without a sidecar gets no script tool', async () => {
    await using m = await manager({ undeclared: undefined })
    const ctx = m.createTurnContext()
    const loaded = await m.load('doc-tool', ctx)
    expect(loaded.tools).toEqual([])
  })

  it('the gate comes first: a refused call runs nothing and writes nothing', async () => {
    const { deny } = await import('../../../src/common/gate.js')
    await using m = await manager()
    const gated = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [join(base, 'skills')] })],
      gate: async (_ctx, req) => {
        if (req.tier === 'script' || (req.tier === 'workspace' && req.tool === 'workspace_write'))
          throw deny('read-only session')
      },
      scripts: { ...sandbox.config, undeclared: 'allow' },
    })
    try {
      const ctx = gated.createTurnContext()
      for (const t of forgeSkillTools(gated)) ctx.tools.register(t)
      await gated.load('doc-tool', ctx)
      await gated.workspace!.put('input.txt', 'a: 1\n')
      const err = await fail(ctx, 'run_doc_tool_script', {
        script: 'scripts/extract.py',
        args: ['input.txt', 'f.json'],
      })
      expect(err.code).toBe('E_SKILL_SCRIPT_DENIED')
      expect(await codeOf(exec(ctx, 'workspace_write', { path: 'x', content: 'y' }))).toBe(
        'E_TOOL_DENIED',
      )
      expect((await gated.workspace!.list()).map((e) => e.path)).toEqual(['input.txt'])
      expect(await call(ctx, 'workspace_read', { path: 'input.txt' })).toContain('a: 1')
    } finally {
      await gated.dispose()
      void m
    }
  })

  it('never writes through a symlink a script planted, and reports links without reading them', async () => {
    await using m = await manager()
    const ctx = m.createTurnContext()
    for (const t of forgeSkillTools(m)) ctx.tools.register(t)
    await m.load('doc-tool', ctx)
    const out = await call(ctx, 'run_doc_tool_script', { script: 'scripts/plant.sh' })
    expect(out).toContain('created link.txt (0 bytes), not spooled: a symlink, not a regular file')
    const hostname = readFileSync('/etc/hostname', 'utf8')
    for (const path of ['link.txt', 'd/up/tmp/pwned']) {
      expect(await codeOf(exec(ctx, 'workspace_write', { path, content: 'pwned' }))).toBe(
        'E_SKILL_SOURCE_PATH_REJECTED',
      )
      expect(await codeOf(exec(ctx, 'workspace_read', { path }))).toBe(
        'E_SKILL_SOURCE_PATH_REJECTED',
      )
    }
    for (const path of ['../x', '/etc/x', '']) {
      const code = await codeOf(exec(ctx, 'workspace_write', { path, content: 'x' }))
      expect(['E_SKILL_SOURCE_PATH_REJECTED', 'E_TOOL_INVALID_ARGS']).toContain(code)
    }
    expect(readFileSync('/etc/hostname', 'utf8')).toBe(hostname)
    expect(existsSync('/tmp/pwned')).toBe(false)
    expect(await call(ctx, 'workspace_write', { path: 'fine.txt', content: 'ok' })).toContain(
      'fine.txt',
    )
  })

  it('kills a call that grows the workspace past its cap, keeps what it wrote listed, and refuses writes over the cap', async () => {
    await using m = await manager({ sessionWorkspace: { maxBytes: 4 * 1024 * 1024 } })
    const ctx = m.createTurnContext()
    for (const t of forgeSkillTools(m)) ctx.tools.register(t)
    await m.load('doc-tool', ctx)
    const err = await fail(ctx, 'run_doc_tool_script', { script: 'scripts/grow.sh' })
    expect(err.code).toBe('E_SKILL_WORKSPACE_FULL')
    expect(err.message).not.toContain('grew')
    expect(err.message).toMatch(/created blob1 /)
    const used = SessionWorkspace.usage((await (await m.workspace!.open()).snapshot()).entries)
    expect(used).toBeLessThan(40 * 1024 * 1024)
    const big = 'x'.repeat(5 * 1024 * 1024)
    expect(await codeOf(exec(ctx, 'workspace_write', { path: 'big.txt', content: big }))).toBe(
      'E_SKILL_WORKSPACE_FULL',
    )
    // The model frees space with a script, and work goes on.
    for (const e of await m.workspace!.list()) await m.workspace!.remove(e.path)
    expect(await call(ctx, 'workspace_write', { path: 'small.txt', content: 'ok' })).toContain(
      'small.txt',
    )
  })

  it('a model write racing a script waits until the script call has finished', async () => {
    await using m = await manager()
    const ctx = m.createTurnContext()
    for (const t of forgeSkillTools(m)) ctx.tools.register(t)
    await m.load('doc-tool', ctx)
    const running = call(ctx, 'run_doc_tool_script', { script: 'scripts/slow_check.sh' })
    await expect
      .poll(async () => (await m.workspace!.list()).map((e) => e.path))
      .toContain('started')
    const written = call(ctx, 'workspace_write', { path: 'note.txt', content: 'hi' })
    expect(await running).toContain('no note')
    expect(await written).toContain('note.txt')
    expect(await call(ctx, 'run_doc_tool_script', { script: 'scripts/slow_check.sh' })).toContain(
      'saw note',
    )
  })

  it('uses a deployer directory in place and keeps it on dispose; refuses a missing one', async () => {
    const project = join(base, 'project')
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, 'input.txt'), 'title: x\n')
    {
      const fs = sandbox.config.policy.filesystem
      await using m = await manager({
        sessionWorkspace: { dir: project },
        policy: {
          ...sandbox.config.policy,
          filesystem: { ...fs, allowWrite: [...fs.allowWrite, project] },
        },
      })
      const ctx = m.createTurnContext()
      await m.load('doc-tool', ctx)
      if (process.getuid?.() === 0) {
        // As root the sandbox runs as nobody, who cannot write a root-owned 0755 folder.
        const err = await fail(ctx, 'run_doc_tool_script', {
          script: 'scripts/extract.py',
          args: ['input.txt', 'f.json'],
        })
        expect(err.code).toBe('E_SKILL_WORKSPACE_FAILED')
        expect(err.message).toMatch(/cannot (reach|write) the session workspace/)
      } else {
        const out = await call(ctx, 'run_doc_tool_script', {
          script: 'scripts/extract.py',
          args: ['input.txt', 'f.json'],
        })
        expect(out).toContain('created f.json')
        expect(readFileSync(join(project, 'f.json'), 'utf8')).toBe('["title"]')
      }
    }
    expect(existsSync(join(project, 'input.txt'))).toBe(true)
    expect(await codeOf(SessionWorkspace.create({ dir: join(base, 'missing') }))).toBe(
      'E_SKILL_WORKSPACE_FAILED',
    )
    expect(await codeOf(SessionWorkspace.create({ dir: project, maxBytes: 0 }))).toBe(
      'E_INVALID_SKILLS_CONFIG',
    )
  })

  it('workspace_read shows text, describes binary and invalid UTF-8 by size and type; workspace_list pages', async () => {
    await using m = await manager()
    const ctx = m.createTurnContext()
    for (const t of forgeSkillTools(m)) ctx.tools.register(t)
    await m.workspace!.put('doc.pdf', new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0, 1, 2]))
    await m.workspace!.put('latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]))
    await m.workspace!.put('notes.md', '# Notes\nline two\n')
    const pdf = await call(ctx, 'workspace_read', { path: 'doc.pdf' })
    expect(pdf).toMatch(
      /^\/work\/doc\.pdf: 8 bytes, application\/pdf; copy: r_[0-9a-f]{16} \(binary, not shown\)$/,
    )
    const id = /copy: (r_[0-9a-f]{16})/.exec(pdf)![1]!
    expect([...(await ctx.spool.get(id))!]).toEqual([0x25, 0x50, 0x44, 0x46, 0x2d, 0, 1, 2])
    expect(await call(ctx, 'workspace_read', { path: 'latin1.txt' })).toContain(
      'application/octet-stream',
    )
    expect(await call(ctx, 'workspace_read', { path: 'latin1.txt' })).toContain(
      '(binary, not shown)',
    )
    expect(await call(ctx, 'workspace_read', { path: 'notes.md' })).toContain('# Notes\nline two')
    for (let i = 0; i < 250; i++) await m.workspace!.put(`many/f${String(i).padStart(3, '0')}`, 'x')
    const first = JSON.parse(await call(ctx, 'workspace_list', { path: 'many' }))
    expect(first.files).toHaveLength(200)
    expect(first.total).toBe(251)
    const second = JSON.parse(
      await call(ctx, 'workspace_list', { path: 'many', cursor: first.nextCursor }),
    )
    expect(second.files).toHaveLength(51)
    expect(second.nextCursor).toBeUndefined()
    expect(await codeOf(exec(ctx, 'workspace_list', { cursor: 'zz' }))).toBe('E_TOOL_INVALID_ARGS')
  })

  it('workspace_read of unchanged bytes names the copy already kept; a full spool refuses with E_SPOOL_FULL', async () => {
    const spool = new MemorySpoolStore({ maxBytes: 64 * 1024, maxItems: 100 })
    await using m = await manager({}, { spool })
    const ctx = m.createTurnContext()
    for (const t of forgeSkillTools(m)) ctx.tools.register(t)
    const idOf = (text: string) => /copy: (r_[0-9a-f]{16})/.exec(text)![1]!
    await m.workspace!.put('big.txt', 'a'.repeat(40 * 1024))
    const first = idOf(await call(ctx, 'workspace_read', { path: 'big.txt' }))
    for (let i = 0; i < 12; i++)
      expect(idOf(await call(ctx, 'workspace_read', { path: 'big.txt' }))).toBe(first)
    expect(spool.size).toBe(1)
    expect(spool.quota.usedBytes).toBe(40 * 1024)
    // Other bytes are another copy; past the quota the read is refused and nothing is kept.
    await m.workspace!.put('big.txt', 'b'.repeat(40 * 1024))
    const err = await fail(ctx, 'workspace_read', { path: 'big.txt' })
    expect(err.code).toBe('E_SPOOL_FULL')
    expect(err.data).toMatchObject({ maxBytes: 64 * 1024, usedBytes: 40 * 1024, size: 40 * 1024 })
    expect(spool.size).toBe(1)
    await ctx.spool.delete(first)
    expect(idOf(await call(ctx, 'workspace_read', { path: 'big.txt' }))).not.toBe(first)
  })

  it('refuses a session workspace configuration it could not honour, at construction', async () => {
    const bad = [
      { undeclared: 'sometimes' },
      { sessionWorkspace: { dir: 'relative/dir' } },
      { sessionWorkspace: { dir: '/srv/elsewhere' } },
      { sessionWorkspace: { maxBytes: -1 } },
    ]
    for (const extra of bad) {
      expect(await codeOf(manager(extra)), JSON.stringify(extra)).toBe('E_INVALID_SKILLS_CONFIG')
    }
  })

  it('host API: put/get/list/remove follow the same path rules; a planted host symlink is refused', async () => {
    const dir = mkdtempSync(join(base, 'private-'))
    const ws = await SessionWorkspace.create({ privateDir: async () => dir })
    await ws.put('a/b.txt', 'hello')
    expect(new TextDecoder().decode((await ws.get('a/b.txt')).bytes)).toBe('hello')
    symlinkSync('/etc', join(dir, 'etc-link'))
    expect(await codeOf(ws.put('etc-link/passwd', 'x'))).toBe('E_SKILL_SOURCE_PATH_REJECTED')
    expect(await codeOf(ws.get('etc-link'))).toBe('E_SKILL_SOURCE_PATH_REJECTED')
    expect(await codeOf(ws.get('nope.txt'))).toBe('E_SKILL_WORKSPACE_FAILED')
    expect((await ws.list()).map((e) => `${e.path}:${e.kind}`)).toEqual([
      'a:dir',
      'a/b.txt:file',
      'etc-link:symlink',
    ])
    await ws.remove('a')
    expect((await ws.list()).map((e) => e.path)).toEqual(['etc-link'])
    await ws.dispose()
    expect(existsSync(dir)).toBe(false)
    expect(await codeOf(ws.put('x', 'y'))).toBe('E_SKILL_WORKSPACE_FAILED')
  })
})
