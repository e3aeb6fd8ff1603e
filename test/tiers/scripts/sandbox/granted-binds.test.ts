import { describe, expect, it } from 'vitest'
import { DEFAULT_SANDBOX_LIMITS } from '../../../../src/tiers/scripts/index.js'
import {
  assertPolicySubset,
  derivePolicy,
  grantPolicy,
  type SandboxPolicy,
} from '../../../../src/tiers/scripts/policy/policy.js'
import { buildBwrapCommand } from '../../../../src/tiers/scripts/sandbox/bwrap-args.js'
import { rejectsWith } from '../../../helpers/error-code.js'

const session: SandboxPolicy = {
  filesystem: {
    allowRead: ['/srv/skills', '/usr', '/data'],
    denyRead: ['/data/private'],
    allowWrite: ['/srv/scratch', '/drop'],
    denyWrite: [],
  },
  network: { allowedDomains: [] },
}

describe('a grant in the derived policy', () => {
  it('adds granted reads and writes, and carries the session denies inside them', () => {
    const policy = derivePolicy({
      skillRoot: '/srv/skills/a',
      scratchDir: '/srv/scratch/1',
      interpreterReadPaths: ['/usr'],
      session,
      granted: { read: ['/data'], write: ['/drop/out'] },
    })
    expect(policy.filesystem).toEqual({
      allowRead: ['/srv/skills/a', '/usr', '/data'],
      denyRead: ['/data/private'],
      allowWrite: ['/srv/scratch/1', '/drop/out'],
      denyWrite: [],
    })
    assertPolicySubset(policy, session)
  })

  it('one entry beyond the session policy is E_SKILL_SCRIPT_POLICY_WIDENED, by the one subset check', () => {
    for (const grant of [
      { read: ['/etc'], write: [] },
      { read: ['/data/private/key'], write: [] },
      { read: [], write: ['/data'] },
    ]) {
      rejectsWith(
        () => assertPolicySubset(grantPolicy(grant, session), session),
        'E_SKILL_SCRIPT_POLICY_WIDENED',
      )
    }
    rejectsWith(
      () => grantPolicy({ read: ['data'], write: [] }, session),
      'E_SKILL_SCRIPT_POLICY_WIDENED',
    )
  })
})

describe('buildBwrapCommand: granted entries bound from descriptors', () => {
  const policy = derivePolicy({
    skillRoot: '/srv/skills/a',
    scratchDir: '/srv/scratch/1',
    interpreterReadPaths: ['/usr'],
    session,
    granted: { read: ['/data'], write: ['/drop/out'] },
  })
  const cmd = buildBwrapCommand({
    limits: { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: 5 },
    fdCloserShell: '/usr/bin/bash',
    sandboxUid: 1000,
    sandboxGid: 1000,
    disableUserns: false,
    statusFd: 3,
    facts: new Map([
      ['/usr', { kind: 'dir' as const }],
      ['/srv/skills/a', { kind: 'dir' as const }],
      ['/data', { kind: 'symlink' as const, target: '/etc', resolved: '/etc' }],
      ['/data/private', { kind: 'dir' as const }],
      ['/drop/out', { kind: 'dir' as const }],
    ]),
    request: {
      argv: ['/bin/true'],
      cwd: '/tmp',
      policy,
      env: {},
      timeoutMs: 1000,
      maxOutputBytes: 10,
      scratch: '/srv/scratch/1',
      grantedFds: new Map([
        ['/data', 41],
        ['/drop/out', 42],
      ]),
      readOnlyFds: [{ fd: 43, sandbox: '/work/.git' }],
    },
  })
  const args = cmd.args.join(' ')

  it('binds each granted entry from its fd, never by its host path', () => {
    expect(cmd.fdBinds).toEqual([
      { fd: 4, hostFd: 41, sandbox: '/data' },
      { fd: 5, hostFd: 42, sandbox: '/drop/out' },
      { fd: 6, hostFd: 43, sandbox: '/work/.git' },
    ])
    expect(args).toContain('--ro-bind-fd 4 /data')
    expect(args).toContain('--bind-fd 5 /drop/out')
    expect(args).not.toContain('--ro-bind /data /data')
    expect(args).not.toContain('--symlink')
    expect(args).not.toContain('--bind /drop/out')
  })

  it('puts the deny mask after the granted bind it lies in, and the protected fds last', () => {
    const grant = args.indexOf('--ro-bind-fd 4 /data')
    const mask = args.indexOf('--tmpfs /data/private')
    const protectedFd = args.indexOf('--ro-bind-fd 6 /work/.git')
    expect(grant).toBeGreaterThan(-1)
    expect(mask).toBeGreaterThan(grant)
    expect(protectedFd).toBeGreaterThan(mask)
  })
})
