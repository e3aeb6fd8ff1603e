// The pure parts of corpus-check's task mode (scripts/corpus-check.mjs
// --tasks): reading the task file, normalising what must differ between a run
// inside skillhost's sandbox and the same run outside, and comparing the two.
// No I/O here, so test/corpus-tasks.test.ts checks it without the public corpus.
import { inflateRawSync } from 'node:zlib'

/** A relative path that stays below its folder: no leading /, no empty, . or .. part. */
function plainPath(s) {
  if (typeof s !== 'string' || s.length === 0 || s.startsWith('/') || /[\\\0]/.test(s)) return false
  return s.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
}
const INPUT_KINDS = ['text', 'json', 'make', 'fromSkill']

function fail(where, what) {
  throw new TypeError(`corpus tasks: ${where}: ${what}`)
}

function checkInput(where, name, input) {
  if (!plainPath(name))
    fail(where, `input name ${JSON.stringify(name)} is not a plain relative path`)
  const kinds = Object.keys(input ?? {}).filter((k) => INPUT_KINDS.includes(k))
  if (kinds.length !== 1)
    fail(where, `input ${name} needs exactly one of ${INPUT_KINDS.join(', ')}`)
}

/**
 * The tasks of a task file, checked: each has an id, a skill (a folder
 * relative to the collections folder), one or more steps (a script of the
 * skill and its arguments) and named inputs. Throws a TypeError naming the
 * first fault, so a typo never runs as a different task.
 */
export function readTasks(text) {
  const doc = JSON.parse(text)
  if (!Array.isArray(doc?.tasks)) fail('file', 'needs a "tasks" array')
  const ids = new Set()
  return doc.tasks.map((task, i) => {
    const where = `task ${task?.id ?? i}`
    if (typeof task?.id !== 'string' || ids.has(task.id)) fail(where, 'needs a unique string id')
    ids.add(task.id)
    if (!plainPath(task.skill)) fail(where, 'needs a skill folder')
    if (!Array.isArray(task.steps) || task.steps.length === 0) fail(where, 'needs steps')
    for (const step of task.steps) {
      if (!Array.isArray(step) || step.length === 0 || !step.every((s) => typeof s === 'string'))
        fail(where, 'each step is [script, ...args], all strings')
      if (!plainPath(step[0])) fail(where, `script ${JSON.stringify(step[0])} is not a skill file`)
    }
    const inputs = task.inputs ?? {}
    for (const [name, input] of Object.entries(inputs)) checkInput(where, name, input)
    return { id: task.id, skill: task.skill, steps: task.steps, inputs, note: task.note }
  })
}

const PATH_CHAR = '[A-Za-z0-9._~+@-]'

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * `text` with each place that must differ between the two runs replaced by
 * its stand-in: the working folder (`/work` inside, a temp folder outside) and
 * the skill folder (`/skill` inside, its real place outside). A place counts
 * only as a whole path: not inside a longer name (`/worksheet`, `a/work`).
 * Longest first, so a folder inside another is replaced whole.
 */
export function normalise(text, places) {
  let out = text
  const sorted = Object.entries(places)
    .filter(([from]) => from.length > 0)
    .sort((a, b) => b[0].length - a[0].length)
  for (const [from, to] of sorted) {
    const whole = new RegExp(`(?<!${PATH_CHAR}|/)${escapeRegExp(from)}(?!${PATH_CHAR})`, 'g')
    out = out.replace(whole, to)
  }
  return out
}

const ISO_TIME = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g

/**
 * `text` with every ISO-8601 date-time that falls within `window` ([first,
 * last] milliseconds of the run, widened by a second each way since many
 * writers drop the fraction) replaced by `<time of the run>`: the clock when a
 * file was written must differ between two runs. Any other date is kept, so a
 * date the script computes from its input still counts.
 */
export function normaliseClock(text, window) {
  if (!window) return text
  const [first, last] = [window[0] - 1000, window[1] + 1000]
  const within = (ms) => Number.isFinite(ms) && ms >= first && ms <= last
  return text.replace(ISO_TIME, (stamp) => {
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(stamp)
    const iso = stamp.replace(' ', 'T')
    const asUtc = Date.parse(zoned ? iso : `${iso}Z`)
    const asLocal = zoned ? asUtc : Date.parse(iso)
    return within(asUtc) || within(asLocal) ? '<time of the run>' : stamp
  })
}

/** What one side's text is compared as: places, then the run's clock, normalised. */
function normaliseSide(text, side) {
  return normaliseClock(normalise(text, side.places), side.window)
}

/**
 * The members of a zip file (docx, xlsx, pptx) as stored, each with its bytes
 * uncompressed, or undefined when `buf` is not a zip this reader handles.
 * Member times are left out on purpose: they are the clock when the file was
 * written, which must differ between two runs.
 */
export function zipMembers(buf) {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  if (buf.length < 22 || eocd < 0 || buf.readUInt32LE(0) !== 0x04034b50) return undefined
  const count = buf.readUInt16LE(eocd + 10)
  let at = buf.readUInt32LE(eocd + 16)
  const members = []
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) return undefined
    const method = buf.readUInt16LE(at + 10)
    const packed = buf.readUInt32LE(at + 20)
    const size = buf.readUInt32LE(at + 24)
    const nameLen = buf.readUInt16LE(at + 28)
    const extraLen = buf.readUInt16LE(at + 30)
    const commentLen = buf.readUInt16LE(at + 32)
    const local = buf.readUInt32LE(at + 42)
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8')
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28)
    const raw = buf.subarray(start, start + packed)
    let data
    if (method === 0) data = raw
    else if (method === 8) data = inflateRawSync(raw)
    else return undefined
    if (data.length !== size) return undefined
    members.push({ name, data })
    at += 46 + nameLen + extraLen + commentLen
  }
  return members
}

const TEXT_FILE = /\.(txt|md|json|csv|tsv|xml|rels|html|log|ya?ml|sig|pem)$/i

/** A file's content as compared: zip members, or text with places normalised, or bytes. */
function comparable(name, buf, side) {
  const members = zipMembers(buf)
  if (members) {
    // By name: a packer that walks a folder stores members in the order the
    // file system lists them, which no file system promises to keep.
    return members
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((m) => `${m.name}\n${normaliseSide(m.data.toString('latin1'), side)}`)
      .join('\n\0\n')
  }
  if (TEXT_FILE.test(name)) return normaliseSide(buf.toString('utf8'), side)
  return buf.toString('latin1')
}

/**
 * Compare one task's two runs. Each run is { status, stdout, files, places,
 * window }: files a Map of relative name to Buffer (the working folder after
 * the last step), places the stand-ins for that side, window the run's first
 * and last millisecond. Exit statuses and stdout must be equal after
 * normalising; so must the set of files and each file's bytes (zip files
 * member by member, zip and text files after normalising; bytes that are
 * equal as they are always match). Returns the
 * differences, each a short fixed phrase plus the file it concerns.
 */
export function compareRuns(outside, inside) {
  const diffs = []
  if (outside.status !== inside.status)
    diffs.push(`exit status ${outside.status} outside, ${inside.status} inside`)
  if (
    outside.stdout !== inside.stdout &&
    normaliseSide(outside.stdout, outside) !== normaliseSide(inside.stdout, inside)
  )
    diffs.push('stdout differs')
  const names = new Set([...outside.files.keys(), ...inside.files.keys()])
  for (const name of [...names].sort()) {
    const a = outside.files.get(name)
    const b = inside.files.get(name)
    if (!b) diffs.push(`${name}: only outside`)
    else if (!a) diffs.push(`${name}: only inside`)
    else if (!a.equals(b) && comparable(name, a, outside) !== comparable(name, b, inside))
      diffs.push(`${name}: content differs`)
  }
  return diffs
}

/** The places each side normalises, to the same stand-ins. */
export function placesOf(workDir, skillDir) {
  return { [workDir]: '<work>', [skillDir]: '<skill>' }
}
