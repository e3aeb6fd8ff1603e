import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { type Discovery, SharedDiscovery } from '../../src/sources/discovery/shared-discovery.js'
import type { DiscoveredSkill, DiscoveryProgress, SkillProblem } from '../../src/sources/types.js'

// SharedDiscovery on its own, over a walk the test finishes by hand: which
// callers share which walk is decided here, with no filesystem and no timing.

const skill = (id: string): DiscoveredSkill => ({ id, version: 'v1', name: id, description: id })
const problem: SkillProblem = {
  location: 'x',
  hostPath: '/x',
  code: 'E_SKILL_SHADOWED',
  message: 'shadowed',
  severity: 'warning',
}

interface Walk {
  readonly onProgress: (progress: DiscoveryProgress) => void
  finish(discovery: Discovery): void
  fail(err: unknown): void
}

function harness(current = () => false) {
  const walks: Walk[] = []
  const shared = new SharedDiscovery({
    walk: (onProgress) =>
      new Promise<Discovery>((resolve, reject) => {
        walks.push({ onProgress, finish: resolve, fail: reject })
      }),
    current,
  })
  return { shared, walks }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('SharedDiscovery', () => {
  it('callers arriving during a walk share the next walk, which starts only after it', async () => {
    const { shared, walks } = harness()
    const first = shared.discoverBatch()
    await tick()
    const late = [shared.discoverBatch(), shared.discoverBatch(), shared.discoverBatch()]
    await tick()
    expect(walks).toHaveLength(1)
    walks[0]!.finish({ events: [{ skill: skill('a') }] })
    expect((await first).map((s) => s.id)).toEqual(['a'])
    await tick()
    expect(walks).toHaveLength(2)
    walks[1]!.finish({ events: [{ skill: skill('b') }] })
    const results = await Promise.all(late)
    // One walk served all three, and they share one array.
    expect(results.map((r) => r.map((s) => s.id))).toEqual([['b'], ['b'], ['b']])
    expect(results[1]).toBe(results[0])
    expect(results[2]).toBe(results[0])
  })

  it('replays the last discovery while it is current, and walks again once it is not', async () => {
    let current = false
    const { shared, walks } = harness(() => current)
    const first = shared.discoverBatch()
    await tick()
    walks[0]!.finish({ events: [{ skill: skill('a') }, { problem }] })
    const a = await first
    current = true
    const reported: SkillProblem[] = []
    const seen: string[] = []
    for await (const s of shared.discover({ report: (p) => reported.push(p) })) seen.push(s.id)
    expect(walks).toHaveLength(1)
    expect(seen).toEqual(['a'])
    expect(reported).toEqual([problem])
    expect(await shared.discoverBatch()).toBe(a)
    current = false
    const again = shared.discoverBatch()
    await tick()
    expect(walks).toHaveLength(2)
    walks[1]!.finish({ events: [] })
    expect(await again).toEqual([])
  })

  it('an aborted caller gets E_ABORTED at once; its walk goes on for the others, and only waiting callers hear progress', async () => {
    // Current once known: a caller queued behind the walk is served its result.
    const { shared, walks } = harness(() => true)
    const abort = new AbortController()
    const heardByAborted: DiscoveryProgress[] = []
    const heardByOther: DiscoveryProgress[] = []
    const aborted = shared.discoverBatch({
      signal: abort.signal,
      onProgress: (p) => heardByAborted.push(p),
    })
    await tick()
    const other = shared.discoverBatch({ onProgress: (p) => heardByOther.push(p) })
    walks[0]!.onProgress({ folders: 1, skills: 0 })
    abort.abort()
    await expect(aborted).rejects.toSatisfy((e) => SkillHostError.is(e, 'E_ABORTED'))
    walks[0]!.onProgress({ folders: 2, skills: 1 })
    walks[0]!.finish({ events: [{ skill: skill('a') }] })
    expect((await other).map((s) => s.id)).toEqual(['a'])
    expect(heardByAborted).toEqual([{ folders: 1, skills: 0 }])
    expect(heardByOther).toEqual([
      { folders: 1, skills: 0 },
      { folders: 2, skills: 1 },
    ])
    expect(walks).toHaveLength(1)
  })

  it('a failed walk fails its callers only; the callers queued behind it get a walk of their own', async () => {
    const { shared, walks } = harness(() => true)
    const first = shared.discoverBatch()
    await tick()
    const queued = shared.discoverBatch()
    walks[0]!.fail(new Error('disk gone'))
    await expect(first).rejects.toThrow('disk gone')
    await tick()
    // No discovery is known yet, so even a current cache cannot be replayed.
    expect(walks).toHaveLength(2)
    walks[1]!.finish({ events: [{ skill: skill('a') }] })
    expect((await queued).map((s) => s.id)).toEqual(['a'])
  })
})
