import { describe, expect, it } from 'vitest'
import {
  assertPolicySubset,
  derivePolicy,
  isPathInside,
  type SandboxPolicy,
} from '../../../../src/tiers/scripts/policy/policy.js'
import { rejectsWith } from '../../../helpers/error-code.js'

const session: SandboxPolicy = {
  filesystem: {
    allowRead: ['/srv/ws/skills', '/usr', '/lib'],
    denyRead: ['/usr/secret'],
    allowWrite: ['/srv/ws/scratch'],
    denyWrite: ['/srv/ws/scratch/frozen'],
  },
  network: { allowedDomains: ['*.example.com'] },
}

function widened(fn: () => void): string {
  return rejectsWith(fn, 'E_SKILL_SCRIPT_POLICY_WIDENED').message
}

describe('policy containment', () => {
  it('contains by whole segments, not by string prefix', () => {
    expect(isPathInside('/a/b/c', '/a/b')).toBe(true)
    expect(isPathInside('/a/b', '/a/b/')).toBe(true)
    expect(isPathInside('/a/bc', '/a/b')).toBe(false)
    expect(isPathInside('/a/b/../c', '/a/b')).toBe(false)
    expect(isPathInside('/anything', '/')).toBe(true)
    expect(isPathInside('a/b', 'a')).toBe(false)
  })
})

describe('derivePolicy + assertPolicySubset', () => {
  const derived = derivePolicy({
    skillRoot: '/srv/ws/skills/pdf-1-abc',
    scratchDir: '/srv/ws/scratch/call-1',
    interpreterReadPaths: ['/usr', '/lib/'],
    session,
  })

  it('derives read = root + interpreter paths, write = scratch, no network, carrying session denies', () => {
    expect(derived).toEqual({
      filesystem: {
        allowRead: ['/srv/ws/skills/pdf-1-abc', '/usr', '/lib'],
        denyRead: ['/usr/secret'],
        allowWrite: ['/srv/ws/scratch/call-1'],
        denyWrite: [],
      },
      network: { allowedDomains: [] },
    })
    expect(() => assertPolicySubset(derived, session)).not.toThrow()
  })

  it('names the entry that widens reads, writes or domains', () => {
    const read = { ...derived, filesystem: { ...derived.filesystem, allowRead: ['/usr', '/etc'] } }
    expect(widened(() => assertPolicySubset(read, session))).toContain("'/etc'")
    const sibling = {
      ...derived,
      filesystem: { ...derived.filesystem, allowRead: ['/srv/ws/skillsX'] },
    }
    expect(widened(() => assertPolicySubset(sibling, session))).toContain("'/srv/ws/skillsX'")
    const write = {
      ...derived,
      filesystem: { ...derived.filesystem, allowWrite: ['/srv/ws/skills/pdf-1-abc'] },
    }
    expect(widened(() => assertPolicySubset(write, session))).toContain('allowWrite')
    const net = { ...derived, network: { allowedDomains: ['evil.com'] } }
    expect(widened(() => assertPolicySubset(net, session))).toContain("'evil.com'")
    const sub = { ...derived, network: { allowedDomains: ['api.example.com'] } }
    expect(() => assertPolicySubset(sub, session)).not.toThrow()
  })

  it('treats a derived allow that drops a session deny as widening', () => {
    const dropped = { ...derived, filesystem: { ...derived.filesystem, denyRead: [] } }
    expect(widened(() => assertPolicySubset(dropped, session))).toContain("'/usr/secret'")
    const inside = {
      ...derived,
      filesystem: { ...derived.filesystem, allowRead: ['/usr/secret/x'] },
    }
    expect(widened(() => assertPolicySubset(inside, session))).toContain('/usr/secret')
    const frozen = derivePolicy({
      skillRoot: '/srv/ws/skills/a',
      scratchDir: '/srv/ws/scratch',
      interpreterReadPaths: [],
      session,
    })
    expect(frozen.filesystem.denyWrite).toEqual(['/srv/ws/scratch/frozen'])
    expect(() => assertPolicySubset(frozen, session)).not.toThrow()
  })

  it('rejects relative entries', () => {
    expect(
      widened(() =>
        derivePolicy({
          skillRoot: 'rel',
          scratchDir: '/srv/ws/scratch/x',
          interpreterReadPaths: [],
          session,
        }),
      ),
    ).toContain('not an absolute path')
  })
})
