import { execFile } from 'node:child_process'
import {
  chmod,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CARRIED_FILES_LIMITS, carriedFiles } from '../../src/cli/run/run-user-files.js'
import { SessionWorkspace } from '../../src/tiers/scripts/index.js'
import { ROOT } from '../helpers/spawn-serve.js'

// `skillhost run` without --workspace, typed in the user's folder (issue 26.3):
// named files go into the private /work, what the script makes comes back.

const bin = join(ROOT, 'dist/cli/main.js')
let tmp = ''
let skill = ''

function run(args: string[], cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, 'run', ...args], { cwd }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** A fresh folder to type `skillhost run` in, holding `files`. */
async function userFolder(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(tmp, name)
  await mkdir(dir)
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text)
  return dir
}

/** A skill folder `name` under the test folder with one script `script`, its text `body`. */
async function scriptSkill(name: string, script: string, body: string): Promise<string> {
  const dir = join(tmp, name)
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(
    join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: A test skill.\n---\n# ${name}\n`,
  )
  await writeFile(join(dir, 'scripts', script), body)
  return dir
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-run-here-'))
  // As root, a root-owned --workspace is used as nobody, who must traverse to it.
  await chmod(tmp, 0o755)
  skill = join(tmp, 'upper')
  await mkdir(join(skill, 'scripts'), { recursive: true })
  await writeFile(join(skill, 'SKILL.md'), '---\nname: upper\ndescription: Uppercases.\n---\n# U\n')
  await writeFile(
    join(skill, 'scripts/upper.sh'),
    // Reads the named input, writes the named output, appends to the input, and leaves a log.
    '#!/bin/sh\ntr a-z A-Z < "$1" > "$2"\necho seen >> "$1"\necho log > run.log\nmkdir -p sub && echo x > sub/extra.txt\necho done\n',
  )
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe.skipIf(process.platform !== 'linux')('skillhost run in the current folder', () => {
  it('copies the named input in and every file the script made or changed back, one line each', async () => {
    const here = await userFolder('plain', { 'in.txt': 'hello\n' })
    const out = await run([skill, 'scripts/upper.sh', '--', 'in.txt', 'out.txt'], here)
    expect(out).toMatchObject({ code: 0, stdout: 'done\n' })
    expect(await readFile(join(here, 'out.txt'), 'utf8')).toBe('HELLO\n')
    expect(await readFile(join(here, 'in.txt'), 'utf8')).toBe('hello\nseen\n')
    expect(await readFile(join(here, 'sub/extra.txt'), 'utf8')).toBe('x\n')
    const lines = out.stderr.trim().split('\n')
    expect(lines).toEqual([
      'updated: in.txt',
      'output: out.txt',
      'output: run.log',
      'output: sub/extra.txt',
    ])
  })

  it("never overwrites a file of the user's that was not named, and says so; --json has copied", async () => {
    const here = await userFolder('kept', { 'in.txt': 'abc\n', 'run.log': 'mine\n' })
    const out = await run([skill, 'scripts/upper.sh', '--json', '--', 'in.txt', 'out.txt'], here)
    expect(out.code).toBe(0)
    const json = JSON.parse(out.stdout) as {
      copied: { path: string; change: string }[]
      notCopied: { path: string; reason: string }[]
    }
    expect(json.copied).toContainEqual({ path: 'out.txt', change: 'output' })
    expect(json.copied).toContainEqual({ path: 'in.txt', change: 'updated' })
    expect(json.notCopied).toEqual([{ path: 'run.log', reason: 'a file of that name exists here' }])
    expect(await readFile(join(here, 'run.log'), 'utf8')).toBe('mine\n')
  })

  it('with --workspace, copies nothing: the folder is the workspace', async () => {
    const here = await userFolder('given', { 'in.txt': 'q\n' })
    const ws = await userFolder('given-ws', { 'in.txt': 'w\n' })
    await chmod(ws, 0o777)
    const out = await run(
      [skill, 'scripts/upper.sh', '--workspace', ws, '--', 'in.txt', 'o.txt'],
      here,
    )
    expect(out.code).toBe(0)
    expect(await readFile(join(ws, 'o.txt'), 'utf8')).toBe('W\n')
    await expect(stat(join(here, 'o.txt'))).rejects.toThrow()
    expect(out.stderr).toContain('[skillhost run: created /work/o.txt]')
  })

  it('a named folder comes in whole (its regular files), and what the script made in it comes back', async () => {
    const here = await userFolder('folder', {})
    await mkdir(join(here, 'skill-copy/scripts'), { recursive: true })
    await writeFile(join(here, 'skill-copy/SKILL.md'), '# copy\n')
    await writeFile(join(here, 'skill-copy/scripts/a.py'), 'print(1)\n')
    await symlink('/etc/hostname', join(here, 'skill-copy/host-link'))
    const lister = await scriptSkill(
      'lister',
      'list.sh',
      '#!/bin/sh\nfind "$1" | sort\necho made > "$1/made.txt"\n',
    )
    const out = await run([lister, 'scripts/list.sh', 'skill-copy'], here)
    expect(out.code).toBe(0)
    // The symlink was not followed into the copy; the folder's files are there.
    expect(out.stdout).toBe(
      'skill-copy\nskill-copy/SKILL.md\nskill-copy/scripts\nskill-copy/scripts/a.py\n',
    )
    expect(await readFile(join(here, 'skill-copy/made.txt'), 'utf8')).toBe('made\n')
    expect(out.stderr).toContain('output: skill-copy/made.txt')
  })

  it('never writes back through a symlink of the user’s folder, wherever the script names it', async () => {
    const outside = await mkdtemp(join(tmp, 'outside-'))
    const here = await userFolder('linked', { 'in.txt': 'x\n' })
    await symlink(outside, join(here, 'link'))
    const writer = await scriptSkill(
      'writer',
      'w.sh',
      '#!/bin/sh\nmkdir -p link/deep && echo pwned > link/new.txt && echo pwned > link/deep/n.txt\n',
    )
    const out = await run([writer, 'scripts/w.sh', 'in.txt'], here)
    expect(out.code).toBe(0)
    expect(out.stderr).toContain(
      'not copied: link/new.txt (a folder on its way here is a symlink or not a folder',
    )
    expect(out.stderr).toContain('not copied: link/deep/n.txt')
    await expect(stat(join(outside, 'new.txt'))).rejects.toThrow()
    await expect(stat(join(outside, 'deep'))).rejects.toThrow()
  })

  it('a named folder past the copy limits is a usage error pointing to --workspace, nothing run', async () => {
    const here = await userFolder('big', {})
    await mkdir(join(here, 'many'))
    for (let i = 0; i <= CARRIED_FILES_LIMITS.files; i++)
      await writeFile(join(here, 'many', `f${i}.txt`), '')
    const out = await run([skill, 'scripts/upper.sh', 'many', 'out.txt'], here)
    expect(out.code).toBe(64)
    expect(out.stderr).toContain('hold more than 2000 files or 64 MiB; give --workspace many')
    await expect(stat(join(here, 'out.txt'))).rejects.toThrow()
  })

  it('keeps an input the user changed while the script ran', async () => {
    const here = await userFolder('meanwhile', { 'in.txt': 'v1\n' })
    const copy = await carriedFiles(here, ['in.txt', '../x', '/etc/passwd', '-v', 'missing.txt'])
    const workspace = await SessionWorkspace.create({
      privateDir: () => mkdtemp(join(tmp, 'ws-')),
    })
    try {
      await copy.prepare(workspace)
      expect(copy.inputs).toEqual(['in.txt'])
      await workspace.put('in.txt', 'script\n')
      // The user's edit: another size and mtime than when it was copied in.
      await writeFile(join(here, 'in.txt'), 'v2 by the user\n')
      await utimes(join(here, 'in.txt'), 1, 1)
      await copy.collect(workspace, {
        workspace: {
          changes: [{ path: 'in.txt', change: 'modified', kind: 'file', size: 7 }],
          complete: true,
          bytes: 7,
          maxBytes: 1024,
          overCap: false,
        },
      } as never)
    } finally {
      await workspace.dispose()
    }
    expect(copy.copied).toEqual([])
    expect(copy.notCopied).toEqual([
      { path: 'in.txt', reason: 'the file here changed while the script ran' },
    ])
    expect(await readFile(join(here, 'in.txt'), 'utf8')).toBe('v2 by the user\n')
  })
})
