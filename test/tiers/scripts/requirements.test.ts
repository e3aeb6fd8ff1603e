import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  readPep723,
  readRequirementsTxt,
  readSkillMdInstalls,
} from '../../../src/tiers/scripts/deps/read-requirements.js'
import { normalizeName, parseRequirement } from '../../../src/tiers/scripts/deps/requirement.js'
import { codeOf } from '../../helpers/error-code.js'

// PEP 508 names: ASCII letters and digits, with '.', '_', '-' inside.
const name = fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,20}[A-Za-z0-9])?$/)
const version = fc.stringMatching(/^[0-9]{1,3}(?:\.[0-9]{1,3}){0,3}$/)
const op = fc.constantFrom('==', '>=', '<=', '~=', '!=', '<', '>')
const spec = fc.tuple(op, version).map(([o, v]) => `${o}${v}`)

describe('parseRequirement: the PEP 508 subset (property-tested)', () => {
  it('accepts every name with any specifiers, spaced or not, and normalizes it', () => {
    fc.assert(
      fc.property(name, fc.array(spec, { maxLength: 3 }), fc.boolean(), (n, specs, spaced) => {
        const gap = spaced ? ' ' : ''
        const r = parseRequirement(`${n}${gap}${specs.join(`${gap},${gap}`)}`, 'x')
        expect(r.name).toBe(normalizeName(n))
        expect(r.text).toBe(`${normalizeName(n)}${specs.join(',')}`)
      }),
    )
  })

  it('keeps extras and a plain marker for pip', () => {
    expect(parseRequirement('Requests[Socks] >= 2.0 ; python_version < "3.12"', 'x').text).toBe(
      'requests[socks]>=2.0; python_version < "3.12"',
    )
  })

  it('refuses URLs, paths and options, naming the place and never the text', () => {
    const hostile = fc.oneof(
      name.map((n) => `${n} @ https://evil.example/SECRET.whl`),
      name.map((n) => `git+https://evil.example/${n}SECRET`),
      name.map((n) => `--index-url=https://SECRET/${n}`),
      name.map((n) => `-e ./${n}SECRET`),
      name.map((n) => `./SECRET/${n}`),
      name.map((n) => `${n}SECRET==1; import os`),
    )
    fc.assert(
      fc.property(hostile, (line) => {
        let err: unknown
        try {
          parseRequirement(line, 'requirements.txt line 7')
        } catch (e) {
          err = e
        }
        expect(codeOf(() => parseRequirement(line, 'x'))).toBe('E_SKILL_REQUIREMENTS_INVALID')
        expect((err as Error).message).toMatch(/^requirements\.txt line 7: /)
        expect((err as Error).message).not.toContain('SECRET')
      }),
    )
  })
})

describe('where requirements are declared', () => {
  it('reads a PEP 723 block: dependencies over several lines and requires-python', () => {
    const script = [
      '#!/usr/bin/env python3',
      '# /// script',
      '# requires-python = ">=3.9"',
      '# dependencies = [',
      '#   "pypdf>=4",   # the reader',
      "#   'Defused_XML',",
      '# ]',
      '# [tool.uv]',
      '# dependencies = "ignored"',
      '# ///',
      'import pypdf',
    ].join('\n')
    expect(readPep723(script)).toEqual({
      requirements: [
        { name: 'pypdf', text: 'pypdf>=4' },
        { name: 'defused-xml', text: 'defused-xml' },
      ],
      requiresPython: '>=3.9',
    })
    expect(readPep723('import sys\n')).toBeUndefined()
    expect(codeOf(() => readPep723('# /// script\n# dependencies = []\n'))).toBe(
      'E_SKILL_REQUIREMENTS_INVALID',
    )
    expect(() =>
      readPep723('# /// script\n# dependencies = ["a", "git+https://x/y"]\n# ///\n'),
    ).toThrow(/^dependencies\[1\]: /)
  })

  it('reads requirements.txt and names the hostile line by number', () => {
    expect(readRequirementsTxt('# tools\nrequests==2.31.0\n\nPyYAML>=6 # parser\n')).toEqual([
      { name: 'requests', text: 'requests==2.31.0' },
      { name: 'pyyaml', text: 'pyyaml>=6' },
    ])
    for (const bad of ['-r other.txt', '--index-url https://x', 'git+https://h/r', '-e .']) {
      expect(() => readRequirementsTxt(`ok\n\n${bad}\n`)).toThrow(/^requirements\.txt line 3: /)
    }
    expect(() => readRequirementsTxt(Array(201).fill('a').join('\n'))).toThrow(/more than 200/)
  })

  it('reads unambiguous install lines of SKILL.md and skips the rest', () => {
    const body = [
      'Install: `pip install pypdf`',
      '```',
      'pip install pypdf pdfplumber',
      '$ python3 -m pip install "openpyxl>=3"',
      'uv run --with markitdown --with defusedxml script.py',
      'pip install -r requirements.txt',
      'pip install git+https://example/x',
      '```',
    ].join('\n')
    expect(readSkillMdInstalls(body).map((r) => r.text)).toEqual([
      'pypdf',
      'pdfplumber',
      'openpyxl>=3',
      'markitdown',
      'defusedxml',
    ])
  })
})
