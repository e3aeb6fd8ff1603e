import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../../../src/index.js'
import type { SkillDescriptor, SkillRef } from '../../../../src/sources/index.js'
import {
  createPathTranslator,
  createScriptSandbox,
  type ScriptSandbox,
  type SkillScriptConfig,
  validateSkillScriptConfig,
} from '../../../../src/tiers/scripts/index.js'
import { describeInterpreter, runScriptOnce } from '../../../../src/tiers/scripts/internal.js'
import { codeOf } from '../../../helpers/error-code.js'
import { ranResult } from '../../../helpers/script-outcome.js'

// Interpreter views (issue 37 item 7, two defects): an interpreter outside
// the system folders was bound at its host path. Under a folder whose path
// begins with the workspace mount (a node under the host's /work), bwrap
// made its mount points inside the user's workspace after every call; and
// a script read the host path through process.execPath. Every family now
// runs from a neutral path under /opt/skillhost.

const linux = process.platform === 'linux'
const base = mkdtempSync(join(tmpdir(), 'skillhost-interp-'))
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))

// The sandbox's workspace mount, and the host folder of the same name the
// interpreters live under, as /work/node22/… lives under the host's /work.
const wsMount = join(base, 'work')
const hostBin = (...p: string[]) => join(wsMount, ...p)

/** `from` at `to`: a hard link when the filesystem allows, else a copy (the real file must live there). */
function place(from: string, to: string): void {
  mkdirSync(join(to, '..'), { recursive: true })
  try {
    linkSync(realpathSync(from), to)
  } catch {
    copyFileSync(realpathSync(from), to)
  }
  chmodSync(to, 0o755)
}

const skillDir = join(base, 'skills', 'views')
for (const [path, text] of Object.entries({
  'SKILL.md': '---\nname: views\ndescription: Shows interpreters.\n---\nRun them.\n',
  'skillhost.yaml': [
    'scripts:',
    '  - { name: node, path: scripts/where.js, description: N., interpreter: node }',
    '  - { name: py, path: scripts/where.py, description: P., interpreter: python3 }',
    '  - { name: mysh, path: scripts/where.sh, description: S., interpreter: mysh }',
    '',
  ].join('\n'),
  // Node's own module resolution: a builtin and a sibling module of the skill.
  'scripts/where.js':
    "const { twice } = require('./lib.js')\nrequire('node:fs').writeFileSync('node.txt', twice('n'))\nconsole.log(process.execPath, require('node:path').sep, process.argv0)\n",
  'scripts/lib.js': 'exports.twice = (s) => s + s\n',
  'scripts/where.py':
    'import sys\nopen("py.txt", "w").write("p")\nprint(sys.executable, sys.prefix, sys.base_prefix)\n',
  'scripts/where.sh': '#!/bin/sh\nprintf s > sh.txt\nreadlink /proc/$$/exe\n',
})) {
  mkdirSync(join(skillDir, path, '..'), { recursive: true })
  writeFileSync(join(skillDir, path), text)
}

describe.skipIf(!linux)('interpreters outside the system folders', () => {
  let sandbox: ScriptSandbox
  let config: SkillScriptConfig
  let source: FileSystemSkillSource
  let ref: SkillRef
  let descriptor: SkillDescriptor
  afterAll(() => sandbox?.dispose())
  beforeAll(async () => {
    place(process.execPath, hostBin('node22/node_modules/node/bin/node'))
    place('/bin/sh', hostBin('tools/bin/mysh'))
    mkdirSync(hostBin('links/bin'), { recursive: true })
    symlinkSync(hostBin('tools/bin/mysh'), hostBin('links/bin/linked'))
    execFileSync('python3', ['-m', 'venv', '--without-pip', hostBin('venv')])
    sandbox = await createScriptSandbox({
      interpreters: {
        node: [hostBin('node22/node_modules/node/bin/node')],
        python3: [hostBin('venv/bin/python3')],
        mysh: [hostBin('tools/bin/mysh')],
        sh: ['/bin/sh'],
        // Ways around: a python name for a program that is no python, a
        // symlink from one workspace-named folder into another, a name
        // like a neutral root of python's.
        python9: [hostBin('tools/bin/mysh')],
        linked: [hostBin('links/bin/linked')],
        venv: [hostBin('tools/bin/mysh'), '-e'],
      },
    })
    config = {
      ...sandbox.config,
      // The host's temp folder (base) may be under /tmp, the default scratch mount.
      translator: createPathTranslator({
        scratchMount: '/scratch',
        workspaceMount: wsMount,
        hiddenHostPaths: sandbox.config.translator.hiddenHostPaths,
      }),
    }
    source = new FileSystemSkillSource({ roots: [join(base, 'skills')] })
    const [found] = await source.discoverBatch()
    ref = { id: found!.id, version: found!.version }
    descriptor = await source.descriptor(ref)
  }, 60_000)

  it('leave nothing in the workspace but what the scripts wrote, run twice, and show no host path', async () => {
    const work = mkdtempSync(join(base, 'user-ws-'))
    chmodSync(work, 0o777)
    const seen: Record<string, string> = {}
    for (let round = 0; round < 2; round++) {
      for (const name of ['node', 'py', 'mysh']) {
        const declared = descriptor.scripts!.find((s) => s.name === name)!
        const result = await ranResult(
          runScriptOnce(config, { source, ref, call: { declared, args: {} }, workspaceDir: work }),
        )
        expect(result.exitCode, result.stderr).toBe(0)
        seen[name] = result.stdout
      }
    }
    // Exactly what the scripts wrote: no node22/, venv/ or tools/ mount points.
    expect(readdirSync(work).sort()).toEqual(['node.txt', 'py.txt', 'sh.txt'])
    const node = process.version.slice(1)
    expect(seen.node).toBe(
      `/opt/skillhost/node/${node}/bin/node / /opt/skillhost/node/${node}/bin/node\n`,
    )
    expect(seen.py).toMatch(/^\/opt\/skillhost\/venv\/bin\/python3 \/opt\/skillhost\/venv /)
    expect(seen.mysh).toBe('/opt/skillhost/programs/mysh/bin/mysh\n')
    for (const out of Object.values(seen)) expect(out).not.toContain(base)
  })

  it('names each interpreter by its sandbox path, with node’s version', () => {
    const views = sandbox.config.interpreterViews ?? {}
    expect(views.node).toMatchObject({
      argv: [`/opt/skillhost/node/${process.version.slice(1)}/bin/node`],
      version: process.version.slice(1),
    })
    expect(views.mysh?.argv).toEqual(['/opt/skillhost/programs/mysh/bin/mysh'])
    // What a load result tells the model: sandbox paths, and node's version.
    const { interpreters } = sandbox.config
    expect(describeInterpreter('node', interpreters, views)).toEqual({
      name: 'node',
      program: `/opt/skillhost/node/${process.version.slice(1)}/bin/node`,
      version: process.version.slice(1),
    })
    expect(describeInterpreter('mysh', interpreters, views)).toEqual({
      name: 'mysh',
      program: '/opt/skillhost/programs/mysh/bin/mysh',
    })
    expect(views.sh).toBeUndefined()
    // One installation, one mount: every name for it runs from there.
    expect(views.python9?.argv).toEqual(['/opt/skillhost/programs/mysh/bin/mysh'])
    expect(views.linked?.argv).toEqual(['/opt/skillhost/programs/mysh/bin/mysh'])
    expect(views.venv?.argv).toEqual(['/opt/skillhost/programs/mysh/bin/mysh', '-e'])
    expect(sandbox.config.policy.filesystem.allowRead).not.toContain(hostBin('links'))
    // The setup is valid as it is: a name with a view runs from its mount, not its host path.
    expect(() => validateSkillScriptConfig(sandbox.config)).not.toThrow()
    const { interpreterViews: _, ...viewless } = sandbox.config
    expect(() => validateSkillScriptConfig(viewless)).toThrow(
      expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
    )
    const mounts = sandbox.config.interpreterMounts ?? []
    for (const m of mounts) expect(m.sandbox.startsWith('/opt/skillhost/')).toBe(true)
    // No mount inside another but a venv's site in its shim (pythonView's layout).
    for (const a of mounts)
      for (const b of mounts)
        if (a !== b && a.sandbox !== '/opt/skillhost/venv/site')
          expect(a.sandbox.startsWith(`${b.sandbox}/`)).toBe(false)
  })
})

describe('an interpreter mount is never inside a mount of the call', () => {
  const translator = createPathTranslator()
  const call = (sandbox: string) => () =>
    translator.forCall({
      skillRoot: join(base, 'skills'),
      scratchDir: base,
      workspaceDir: base,
      interpreterMounts: [{ host: base, sandbox }],
    })
  it('refuses one in or over /work, /skill, /tmp or a system folder, and keeps /opt/skillhost', async () => {
    for (const bad of ['/work/node22', '/work', '/skill/x', '/tmp/../work/x', '/usr/lib/x']) {
      expect(await codeOf(Promise.resolve().then(call(bad)))).toBe('E_INVALID_SKILLS_CONFIG')
    }
    expect(call('/opt/skillhost/node/22.0.0')).not.toThrow()
  })
})

describe.skipIf(!linux)('an interpreter whose installation holds the sandbox base', () => {
  it('is refused at setup: it would show every session’s workspace', async () => {
    const outer = join(base, 'outer')
    place('/bin/sh', join(outer, 'mysh'))
    const baseDir = join(outer, 'sandbox-base')
    mkdirSync(baseDir)
    const made = createScriptSandbox({ baseDir, interpreters: { mysh: [join(outer, 'mysh')] } })
    expect(await codeOf(made)).toBe('E_INVALID_SKILLS_CONFIG')
  })
})
