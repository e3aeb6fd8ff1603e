import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../src/common/index.js'

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')

/** `## HEADING` sections of the doc, with their bodies. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>()
  const parts = markdown.split(/^## /m).slice(1)
  for (const part of parts) {
    const newline = part.indexOf('\n')
    out.set(part.slice(0, newline).trim(), part.slice(newline + 1))
  }
  return out
}

describe('docs/errors.md', () => {
  const documented = sections(doc)
  const codes = Object.keys(ERROR_CODES)

  it('has a section for every code in the table', () => {
    const missing = codes.filter((code) => !documented.has(code))
    expect(missing, 'codes with no "## CODE" section in docs/errors.md').toEqual([])
  })

  it('has no section for a code that is not in the table', () => {
    const stray = [...documented.keys()].filter((heading) => !Object.hasOwn(ERROR_CODES, heading))
    expect(stray, 'sections naming no code in src/common/error-codes.ts').toEqual([])
  })

  it('gives each code its table status, when it is raised and what to do', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const body = documented.get(code) ?? ''
      expect(body, code).toContain(`**Status:** ${status}`)
      expect(body, code).toContain('**Raised when:**')
      expect(body, code).toMatch(/\*\*(Host|Model):\*\*/)
    }
  })

  it('documents each code once', () => {
    const headings = doc.match(/^## .+$/gm) ?? []
    expect(headings.length).toBe(new Set(headings).size)
  })
})
