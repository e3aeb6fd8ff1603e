// Every SKILL.md frontmatter under the given roots, parsed by the fast path
// (parseSimpleFrontmatter) and by the `yaml` path parseSkillMd falls back to;
// prints how many the fast path took and every difference (there must be none).
// Usage: npx tsc -p tsconfig.build.json && node bench/frontmatter-corpus.mjs ROOT...
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseSimpleFrontmatter } from '../dist/manifest/parse-simple-frontmatter.js'
import { keepExactIntegers, parseYamlDocument } from '../dist/manifest/parse-yaml-document.js'

/** The frontmatter text as `parseSkillMd` slices it, or undefined. */
function frontmatterOf(text) {
  let t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (t.includes('\r')) t = t.replace(/\r\n?/g, '\n')
  const open = /^---[ \t]*(?:\n|$)/.exec(t)
  if (!open?.[0].endsWith('\n')) return undefined
  const close = /\n---[ \t]*(?:\n|$)/g
  close.lastIndex = open[0].length - 1
  const m = close.exec(t)
  return m ? t.slice(open[0].length, m.index + 1) : undefined
}

function* skillMds(dir) {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const e of entries) {
    const p = join(dir, e.name)
    if (e.isDirectory() && e.name !== '.git' && e.name !== 'node_modules') yield* skillMds(p)
    else if (e.name === 'SKILL.md' && e.isFile()) yield p
  }
}

/** The `yaml` path's value, or a marker when it reports errors. */
function slow(text) {
  const doc = parseYamlDocument(text, 'SKILL.md frontmatter', { strict: true })
  if (doc.errors.length > 0) return '<yaml error>'
  keepExactIntegers(doc)
  return doc.toJS({ maxAliasCount: 100 })
}

/** A canonical text of a value: types, -0 and NaN kept apart; prototypes ignored. */
function canon(v) {
  if (typeof v === 'number') return Object.is(v, -0) ? 'n:-0' : `n:${v}`
  if (typeof v === 'string') return `s:${JSON.stringify(v)}`
  if (v === null || typeof v !== 'object') return `${typeof v}:${v}`
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`
  return `{${Object.keys(v)
    .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
    .join(',')}}`
}

let total = 0
let fast = 0
let differ = 0
for (const root of process.argv.slice(2)) {
  for (const path of skillMds(root)) {
    const text = frontmatterOf(readFileSync(path, 'utf8'))
    if (text === undefined) continue
    total++
    let got
    try {
      got = parseSimpleFrontmatter(text)
    } catch (err) {
      console.log(`THROWS ${path}: ${err}`)
      differ++
      continue
    }
    if (got === undefined) continue
    fast++
    let want
    try {
      want = slow(text)
    } catch (err) {
      want = `<throws ${err}>`
    }
    if (canon(got) !== canon(want)) {
      differ++
      if (differ <= 20) console.log(`DIFF ${path}\n  fast ${canon(got)}\n  yaml ${canon(want)}`)
    }
  }
}
console.log(
  JSON.stringify({
    frontmatters: total,
    fastPath: fast,
    fallback: total - fast,
    differences: differ,
  }),
)
process.exitCode = differ === 0 ? 0 : 1
