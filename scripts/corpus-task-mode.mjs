// corpus-check's task mode: public skills' scripts on real inputs, run
// directly and through `skillhost run`, outputs compared byte for byte.
// Usage and the flags the inside run needs: the header of corpus-check.mjs.
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, extname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { exec, reason } from './corpus-exec.mjs'
import { compareRuns, placesOf, readTasks } from './corpus-tasks.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const CLI = resolve(HERE, '../dist/cli/main.js')
const MAKE_INPUT = resolve(HERE, 'corpus-inputs.py')
const TIMEOUT_SECONDS = 60
/** The uid that owns the inside workspace: skillhost refuses a root-owned one (scripts never run as root). */
const WORKSPACE_UID = 1000
/** Where the sandbox mounts the workspace and the skill: the inside run's stand-ins. */
const INSIDE_PLACES = placesOf('/work', '/skill')

function interpreterOf(script, tools) {
  const ext = extname(script)
  if (ext === '.py') return tools.python
  if (ext === '.js' || ext === '.mjs' || ext === '.cjs') return tools.node
  return 'bash'
}

/** Writes the task's inputs into `into`: literal text or JSON, a generated document, or a file of the skill itself. */
async function prepareInputs(task, skillDir, into, tools) {
  for (const [name, input] of Object.entries(task.inputs)) {
    const target = join(into, name)
    mkdirSync(dirname(target), { recursive: true })
    if (input.text !== undefined) writeFileSync(target, input.text)
    else if (input.json !== undefined)
      writeFileSync(target, `${JSON.stringify(input.json, null, 2)}\n`)
    else if (input.fromSkill !== undefined) cpSync(join(skillDir, input.fromSkill), target)
    else {
      const made = await exec([tools.python, MAKE_INPUT, input.make, target], into)
      if (made.status !== 0)
        throw new Error(`could not make ${name} (${input.make}): ${made.stderr}`)
    }
  }
}

/**
 * Every file, symlink and folder under dir, by relative name (a folder as
 * `name/`, so an empty one left behind counts too).
 */
function snapshot(dir) {
  const files = new Map()
  const walk = (at) => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, e.name)
      const rel = relative(dir, full)
      if (e.isDirectory()) {
        files.set(`${rel}/`, Buffer.from('folder'))
        walk(full)
      } else if (e.isSymbolicLink()) files.set(rel, Buffer.from(`symlink -> ${readlinkSync(full)}`))
      else if (lstatSync(full).isFile()) files.set(rel, readFileSync(full))
    }
  }
  walk(dir)
  return files
}

/** The steps run directly, as a user would type them, with the same interpreters. */
async function runOutside(task, skillDir, work, tools) {
  const path = [dirname(tools.python), dirname(tools.node), process.env.PATH].join(':')
  let stdout = ''
  let last = { status: 0, stderr: '' }
  for (const [script, ...args] of task.steps) {
    const argv = [interpreterOf(script, tools), join(skillDir, script), ...args]
    last = await exec(argv, work, { timeoutSeconds: TIMEOUT_SECONDS + 10, path })
    stdout += last.stdout
    if (last.status !== 0) break
  }
  return { status: last.status, stdout, stderr: last.stderr }
}

/** The steps through `skillhost run`, this checkout's dist/, one sandboxed call each. */
async function runInside(task, skillDir, work, tools) {
  const flags = ['--json', '--timeout', String(TIMEOUT_SECONDS), '--workspace', work]
  flags.push('--interpreter', `python3=${tools.python}`, '--interpreter', `node=${tools.node}`)
  let stdout = ''
  let last = { status: 0, stderr: '' }
  for (const [script, ...args] of task.steps) {
    const argv = [process.execPath, CLI, 'run', skillDir, script, ...flags, '--', ...args]
    const through = await exec(argv, tmpdir(), { timeoutSeconds: TIMEOUT_SECONDS + 20 })
    try {
      const parsed = JSON.parse(through.stdout)
      last = parsed.error
        ? { status: through.status, stderr: parsed.error.code }
        : { status: parsed.timedOut ? 124 : (parsed.exitCode ?? 128), stderr: parsed.stderr ?? '' }
      stdout += parsed.stdout ?? ''
    } catch {
      last = { status: through.status, stderr: through.stderr || 'unparsable output' }
    }
    if (last.status !== 0) break
  }
  return { status: last.status, stdout, stderr: last.stderr }
}

function chownTree(dir, uid) {
  chownSync(dir, uid, uid)
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    chownSync(join(e.parentPath, e.name), uid, uid)
}

/** Why two runs differ, shortest first: the side that alone failed and its reason, else the first differences. */
function whyDiffers(diffs, outside, inside) {
  if (diffs.length === 0) return undefined
  if (outside.status === 0 && inside.status !== 0) return `fails only inside: ${reason(inside)}`
  if (inside.status === 0 && outside.status !== 0) return `fails only outside: ${reason(outside)}`
  return diffs.slice(0, 3).join('; ')
}

/** One task: inputs made once, copied to both sides, run, compared. */
async function runTask(task, root, tools, keep) {
  const skillDir = realpathSync(resolve(root, task.skill))
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'skillhost-corpus-task-')))
  // mkdtemp makes it 0700; the workspace's owner (not root) must reach the folder inside.
  chmodSync(scratch, 0o755)
  try {
    const seed = join(scratch, 'seed')
    const out = join(scratch, 'outside')
    const ins = join(scratch, 'inside')
    mkdirSync(seed)
    await prepareInputs(task, skillDir, seed, tools)
    cpSync(seed, out, { recursive: true })
    cpSync(seed, ins, { recursive: true })
    chownTree(ins, WORKSPACE_UID)
    const start = Date.now()
    const outside = await runOutside(task, skillDir, out, tools)
    const inside = await runInside(task, skillDir, ins, tools)
    // One window for both sides, so a stamp normalises alike on each.
    const window = [start, Date.now()]
    const outFiles = snapshot(out)
    const seedFiles = snapshot(seed)
    // How much a match rests on: stdout bytes and files made or changed outside.
    const made = [...outFiles].filter(([n, b]) => !seedFiles.get(n)?.equals(b)).length
    const diffs = compareRuns(
      { ...outside, files: outFiles, places: placesOf(out, skillDir), window },
      { ...inside, files: snapshot(ins), places: INSIDE_PLACES, window },
    )
    const why = whyDiffers(diffs, outside, inside)
    const kept = keep ? scratch : undefined
    const row = { id: task.id, outside: outside.status, inside: inside.status, same: !why, why }
    Object.assign(row, { stdoutBytes: Buffer.byteLength(outside.stdout), made })
    return { ...row, note: task.note, kept }
  } finally {
    if (!keep) rmSync(scratch, { recursive: true, force: true })
  }
}

/** Runs the task file's tasks two at a time and prints the matches and each mismatch with its reason. */
export async function runTaskMode(root, opts) {
  const tasks = readTasks(readFileSync(opts.tasks, 'utf8')).filter(
    (t) => !opts.only || opts.only.includes(t.id),
  )
  const tools = { python: opts.python, node: opts.node }
  const rows = []
  let index = 0
  const worker = async () => {
    while (index < tasks.length) {
      const task = tasks[index++]
      if (!existsSync(resolve(root, task.skill))) {
        rows.push({ id: task.id, same: false, why: 'skill folder not found under the root' })
        continue
      }
      rows.push(await runTask(task, root, tools, opts.keep))
      if (!opts.json) process.stderr.write(`\r${rows.length}/${tasks.length}`)
    }
  }
  await Promise.all([worker(), worker()])
  rows.sort((a, b) => tasks.findIndex((t) => t.id === a.id) - tasks.findIndex((t) => t.id === b.id))
  const same = rows.filter((r) => r.same).length
  const skills = new Set(tasks.map((t) => t.skill)).size
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ tasks: rows.length, skills, same, rows }, null, 2)}\n`)
    return
  }
  process.stderr.write('\n')
  const out = (s) => process.stdout.write(`${s}\n`)
  out(`${rows.length} tasks of ${skills} skills (python ${tools.python}, node ${tools.node})`)
  out(`  same output inside and outside: ${same}`)
  for (const r of rows) {
    const status =
      r.outside === undefined
        ? ''
        : ` [exit ${r.outside} outside, ${r.inside} inside; ${r.stdoutBytes} B stdout, ${r.made} made]`
    out(`  ${r.same ? 'same ' : 'DIFF '} ${r.id}${status}${r.same ? '' : `: ${r.why}`}`)
    if (!r.same && r.note) out(`        note: ${r.note}`)
    if (r.kept) out(`        kept: ${r.kept}`)
  }
}
