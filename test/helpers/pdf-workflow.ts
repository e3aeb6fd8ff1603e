import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { fillablePdf, SAMPLE_FORM } from './fillable-pdf.js'
import { pypdfPython } from './pdf-form-fixture.js'

/**
 * What the three drives of the pdf-form workflow share: the values the model
 * writes, the files the workspace must end with, the tree comparisons that
 * prove nothing was written elsewhere, and a host-side reading of the
 * filled PDF with pypdf (from stdin, so the check itself writes nothing).
 */

/** The skill, and the tool undeclared scripts give it. */
export const SKILL = 'pdf-form'
export const RUN = 'run_pdf_form_script'

/** The values the model writes into values.json. */
export const VALUES: Readonly<Record<string, string>> = {
  full_name: 'Ada Lovelace',
  signed_on: '2024-05-01',
}

/** Every file the workspace holds at the end of the workflow, and nothing else. */
export const WORKSPACE_FILES = ['fields.json', 'input.pdf', 'out.pdf', 'values.json']

/** The user's input: a fillable PDF with empty fields. */
export const INPUT_PDF: Uint8Array = fillablePdf(SAMPLE_FORM)

/** The script calls of the workflow, in order, as the skill's SKILL.md writes them. */
export const CALLS = {
  extract: { script: 'scripts/extract_fields.py', args: ['input.pdf', 'fields.json'] },
  fill: { script: 'scripts/fill_fields.py', args: ['input.pdf', 'values.json', 'out.pdf'] },
  verify: { script: 'scripts/verify_fields.py', args: ['out.pdf'] },
} as const

/** The spooled copy's id a script result names for `path` (`created out.pdf (N bytes), copy: r_…`). */
export function copyIdOf(result: string, path: string): string | undefined {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?:created|modified) ${escaped} \\(\\d+ bytes\\), copy: (r_[0-9a-f]{16})`)
    .exec(result)
    ?.at(1)
}

/** values.json as the model would write it, from the names in fields.json (unknown names left out). */
export function valuesFor(fieldsJson: string): string {
  const fields = JSON.parse(fieldsJson) as { name: string }[]
  const values: Record<string, string> = {}
  for (const { name } of fields) {
    const value = VALUES[name]
    if (value !== undefined) values[name] = value
  }
  return JSON.stringify(values)
}

/** One entry of a tree listing: what a before/after comparison looks at. */
type Listed = string

/**
 * Every entry below `dir` (symlinks not followed) with its kind, size, mode
 * and, for files, a content hash: two listings are equal only if nothing
 * was added, removed or changed.
 */
export function treeListing(dir: string): Listed[] {
  const out: Listed[] = []
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name
      const st = lstatSync(join(dir, path))
      const mode = (st.mode & 0o7777).toString(8)
      if (st.isDirectory()) {
        out.push(`${path}/ ${mode}`)
        walk(path)
      } else if (st.isFile()) {
        const sum = createHash('sha256')
          .update(readFileSync(join(dir, path)))
          .digest('hex')
        out.push(`${path} ${mode} ${st.size} ${sum.slice(0, 16)}`)
      } else {
        out.push(`${path} (not a file or folder)`)
      }
    }
  }
  walk('')
  return out
}

/** The paths of every entry below `dir`, sorted (folders end in `/`). */
export function pathsBelow(dir: string): string[] {
  return treeListing(dir).map((l) => l.split(' ')[0] as string)
}

/**
 * A fresh temporary directory the sandbox can use: when tests run as root
 * the sandbox runs as `nobody`, which must traverse and write it, and
 * mkdtemp makes it 0700.
 */
export function sharedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o777)
  return dir
}

/** The host python that reads PDFs; the drives need it and say how to get it. */
export function requirePypdf(): string {
  const python = pypdfPython()
  expect(
    python,
    'install pypdf: apt-get install python3-pypdf (scripts/test.sh does)',
  ).toBeDefined()
  return python as string
}

/** The text fields of a PDF, read by host pypdf from stdin (nothing written to disk). */
export function pdfFields(python: string, bytes: Uint8Array): Record<string, string> {
  const code = [
    'import io, json, sys',
    'from pypdf import PdfReader',
    'fields = PdfReader(io.BytesIO(sys.stdin.buffer.read())).get_fields() or {}',
    'print(json.dumps({k: str(f.get("/V", "")) for k, f in fields.items()}))',
  ].join('\n')
  const out = execFileSync(python, ['-c', code], {
    input: bytes,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' },
  })
  return JSON.parse(out.toString('utf8')) as Record<string, string>
}

/** Checks the filled PDF's bytes: a PDF whose fields hold exactly `VALUES`. */
export function expectFilledPdf(python: string, bytes: Uint8Array): void {
  expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-')
  expect(pdfFields(python, bytes)).toEqual(VALUES)
}

/** The stdout of verify_fields.py for the filled form. */
export const VERIFY_STDOUT = 'full_name: Ada Lovelace\nsigned_on: 2024-05-01\n2 of 2 fields filled'
