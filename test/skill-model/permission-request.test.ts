import { describe, expect, it } from 'vitest'
import { parseOpenAiYaml } from '../../src/manifest/parse-openai-yaml.js'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'
import {
  checkPermissionRequest,
  MAX_PERMISSION_PATHS,
  normalizePermissionRequest,
} from '../../src/skill-model/permission-request.js'
import { rejectsWith } from '../helpers/error-code.js'

describe('normalizePermissionRequest', () => {
  it('reads Codex’s shape: network, file_system.read and .write; absolute and skill-relative paths', () => {
    const { request, warnings } = normalizePermissionRequest({
      network: true,
      file_system: { read: ['/data//x/./y/', './data/local.txt', '/data/x/y'], write: ['/out'] },
    })
    expect(warnings).toEqual([])
    expect(request).toEqual({
      network: true,
      read: ['/data/x/y', 'data/local.txt'],
      write: ['/out'],
    })
  })

  it('a mapping under network is a network request; false or nothing asks for nothing', () => {
    expect(normalizePermissionRequest({ network: { allowed_domains: ['x'] } }).request).toEqual({
      network: true,
      read: [],
      write: [],
    })
    expect(normalizePermissionRequest({ network: false })).toEqual({
      request: undefined,
      warnings: [],
    })
    expect(normalizePermissionRequest(undefined)).toEqual({ request: undefined, warnings: [] })
  })

  it('never throws on hostile shapes: each bad part is a warning and the rest stands', () => {
    const { request, warnings } = normalizePermissionRequest({
      network: 'yes',
      macos: { calendar: true },
      file_system: {
        read: [
          '/ok',
          7,
          null,
          ['/nested'],
          '/a/../etc',
          '~',
          '~/x',
          '',
          'C:/x',
          'a\u0000b',
          'x'.repeat(2000),
        ],
        write: '/not-a-list',
        exec: ['/bin'],
      },
    })
    expect(request).toEqual({ network: false, read: ['/ok'], write: [] })
    expect(warnings).toEqual([
      'permissions."macos" is not honoured; it was ignored',
      'permissions.network must be true, false or a mapping; it was ignored',
      'permissions.file_system."exec" is not honoured; it was ignored',
      'permissions.file_system.read[1] is not a string (number); it was ignored',
      'permissions.file_system.read[2] is not a string (object); it was ignored',
      'permissions.file_system.read[3] is not a string (object); it was ignored',
      'permissions.file_system.read[4] "/a/../etc" traverses to a parent directory (..); it was ignored',
      'permissions.file_system.read[5] "~" is relative to a home directory; write the absolute path; it was ignored',
      'permissions.file_system.read[6] "~/x" is relative to a home directory; write the absolute path; it was ignored',
      'permissions.file_system.read[7] "" is empty; it was ignored',
      'permissions.file_system.read[8] "C:/x" is neither absolute nor a plain path inside the skill; it was ignored',
      'permissions.file_system.read[9] "a\\u0000b" contains a control character; it was ignored',
      `permissions.file_system.read[10] "${'x'.repeat(80)}…" is longer than 1024 characters; it was ignored`,
      'permissions.file_system.write must be a list of paths; it was ignored',
    ])
  })

  it('bounds each list and the warnings it can cause', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => `/p/${i}`)
    const { request, warnings } = normalizePermissionRequest({
      file_system: { read: many, write: Array.from({ length: 100_000 }, () => 1) },
    })
    expect(request?.read).toHaveLength(MAX_PERMISSION_PATHS)
    expect(request?.write).toEqual([])
    // One line for the cut, one per kept entry at most.
    expect(warnings.length).toBeLessThanOrEqual(2 + MAX_PERMISSION_PATHS)
    const keys = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 1]))
    expect(normalizePermissionRequest(keys).warnings).toHaveLength(20)
  })

  it('a top level that is not a mapping asks for nothing', () => {
    for (const raw of [[], 'all', 1, true]) {
      const { request, warnings } = normalizePermissionRequest(raw)
      expect(request).toBeUndefined()
      expect(warnings[0]).toMatch(/must be a mapping/)
    }
  })

  it('checkPermissionRequest applies the same rule to a request built in code', () => {
    expect(
      checkPermissionRequest({ network: 'yes', read: ['/a', '/b/../c'], write: ['/w'] }),
    ).toEqual({
      request: { network: false, read: ['/a'], write: ['/w'] },
      warnings: [
        'permissions.file_system.read[1] "/b/../c" traverses to a parent directory (..); it was ignored',
      ],
    })
    expect(checkPermissionRequest('everything').request).toBeUndefined()
  })
})

describe('parseOpenAiYaml', () => {
  it('reads permissions and leaves Codex’s other keys alone', () => {
    const parsed = parseOpenAiYaml(
      'interface:\n  display_name: X\npolicy:\n  allow_implicit_invocation: false\npermissions:\n  file_system:\n    read: [/srv/data]\n',
    )
    expect(parsed).toEqual({
      request: { network: false, read: ['/srv/data'], write: [] },
      warnings: [],
    })
  })

  it('bad YAML, aliases, deep nesting or a non-mapping top level are a warning, never a throw', () => {
    const bomb = `a: &a [x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 12 }, (_, i) => `b${i}: &b${i} [${Array.from({ length: 9 }, () => (i === 0 ? '*a' : `*b${i - 1}`)).join(', ')}]`).join('\n')}\npermissions: *b11\n`
    const cases = [
      'permissions: [unclosed',
      `permissions: ${'{a: '.repeat(300)}1${'}'.repeat(300)}`,
      bomb,
      '- a list\n',
    ]
    for (const text of cases) {
      const parsed = parseOpenAiYaml(text)
      expect(parsed.request).toBeUndefined()
      expect(parsed.warnings).toHaveLength(1)
      expect(parsed.warnings[0]).toMatch(/^agents\/openai\.yaml: .*permissions were ignored$/)
    }
    expect(parseOpenAiYaml('')).toEqual({ request: undefined, warnings: [] })
  })
})

describe('skillhost.yaml permissions', () => {
  it('are parsed by the same rule', () => {
    const sidecar = parseSkillSidecar(
      'permissions:\n  network: true\n  file_system:\n    write: [/srv/out]\n',
    )
    expect(sidecar.permissions).toEqual({ network: true, read: [], write: ['/srv/out'] })
  })

  it('a bad entry is the sidecar’s error, as every other sidecar problem', () => {
    const err = rejectsWith(
      () => parseSkillSidecar('permissions:\n  file_system:\n    read: [/a/../b]\n'),
      'E_SKILL_MANIFEST_INVALID',
    )
    expect(err.message).toBe(
      'skillhost.yaml is invalid: permissions.file_system.read[0] "/a/../b" traverses to a parent directory (..)',
    )
  })
})
