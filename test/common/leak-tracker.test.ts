import { afterEach, describe, expect, it } from 'vitest'
import {
  currentResourceTracker,
  describeLeaks,
  describeResourceOwner,
  ResourceTracker,
  setResourceOwner,
  setResourceTracker,
  trackResource,
  withResourceOwner,
} from '../../src/common/leak-tracker.js'
import { asyncOwnerScope } from '../helpers/owner-scope.js'

// Each test swaps in its own tracker and puts the file's back afterwards, so
// what it leaks on purpose never reaches the file's own leak check.
let restore: ResourceTracker | undefined
function install(tracker: ResourceTracker | undefined): void {
  restore = setResourceTracker(tracker)
}
afterEach(() => {
  setResourceTracker(restore)
})

describe('leak tracker', () => {
  it('is installed for every test file by the setup file', () => {
    expect(currentResourceTracker()).toBeInstanceOf(ResourceTracker)
  })

  it('records nothing, and hands out one no-op, when no tracker is installed', () => {
    install(undefined)
    const a = trackResource('manager', 'one')
    const b = trackResource('worker', 'two')
    expect(a).toBe(b)
    expect(currentResourceTracker()).toBeUndefined()
  })

  it('reports what is made and not released, with its kind, label and the stack that made it', async () => {
    const tracker = new ResourceTracker()
    install(tracker)
    const release = trackResource('manager', 'released')
    trackResource('watcher', '/tmp/kept')
    release()
    release() // harmless twice
    const leaks = await tracker.settle()
    expect(leaks.map((r) => [r.kind, r.label])).toEqual([['watcher', '/tmp/kept']])
    const text = describeLeaks(leaks)
    expect(text).toContain(
      "1 resource(s) outlived the test file:\n- watcher '/tmp/kept', no owner, made",
    )
    expect(text).toContain('leak-tracker.test.ts')
    expect(text).not.toContain('node_modules')
  })

  it('names the owner in force when a resource was made, through awaits, up to the root', async () => {
    const tracker = new ResourceTracker(asyncOwnerScope())
    install(tracker)
    const host = {}
    const session = {}
    describeResourceOwner(host, 'the host')
    const untrackSession = trackResource('mcp-session', 's', undefined, session)
    const skill = {}
    await withResourceOwner(session, async () => {
      describeResourceOwner(skill, "skill 'pdf' 1")
      await Promise.resolve()
      withResourceOwner(skill, () => trackResource('scratch', '/tmp/s'))
      await Promise.resolve()
      trackResource('process', 'bwrap')
    })
    trackResource('spool', '/tmp/none')
    setResourceOwner(session, host)
    const leaks = await tracker.settle()
    const owners = (label: string) => tracker.ownersOf(leaks.find((r) => r.label === label)!)
    expect(owners('/tmp/s')).toEqual(["skill 'pdf' 1", "mcp-session 's' (leaked too)", 'the host'])
    expect(owners('bwrap')).toEqual(["mcp-session 's' (leaked too)", 'the host'])
    expect(owners('s')).toEqual(['the host'])
    expect(owners('/tmp/none')).toEqual([])
    untrackSession()
    const after = await tracker.settle()
    expect(tracker.ownersOf(after.find((r) => r.label === 'bwrap')!)).toEqual([
      "mcp-session 's' (released)",
      'the host',
    ])
    expect(describeLeaks(after, tracker)).toContain(
      "- process 'bwrap', owned by mcp-session 's' (released) › the host, made\n",
    )
    // Owners that own each other end the chain instead of looping.
    setResourceOwner(host, session)
    expect(tracker.ownersOf(after.find((r) => r.label === 'bwrap')!)).toEqual([
      "mcp-session 's' (released)",
      'the host',
    ])
  })

  it('runs the function alone, and describes nothing, when no tracker or no owner is in force', () => {
    install(undefined)
    expect(withResourceOwner({}, () => 7)).toBe(7)
    describeResourceOwner({}, 'nobody')
    setResourceOwner({}, {})
    const tracker = new ResourceTracker()
    setResourceTracker(tracker) // afterEach puts the file's back
    // A tracker without a scope knows no owner in force.
    withResourceOwner({}, () => trackResource('scratch', '/tmp/x'))
    expect(tracker.leaks().map((r) => r.owner)).toEqual([undefined])
    expect(withResourceOwner(undefined, () => 'ran')).toBe('ran')
  })

  it('waits for a release under way, whether it succeeds or fails', async () => {
    const tracker = new ResourceTracker()
    install(tracker)
    let finish = () => {}
    let fail = (_: Error) => {}
    trackResource(
      'worker',
      'a',
    )(
      new Promise<void>((resolve) => {
        finish = resolve
      }),
    )
    trackResource(
      'process',
      'b',
    )(
      new Promise<void>((_, reject) => {
        fail = reject
      }),
    )
    expect(tracker.leaks().map((r) => r.label)).toEqual(['a', 'b'])
    const settled = tracker.settle()
    finish()
    fail(new Error('teardown failed'))
    expect(await settled).toEqual([])
  })

  it('waits for an exit already due: a release made in a callback of the next turn counts', async () => {
    const tracker = new ResourceTracker()
    install(tracker)
    const release = trackResource('process', 'exiting')
    setImmediate(() => release())
    expect(await tracker.settle()).toEqual([])
  })

  it('skips a resource that is gone without a release (its folder was removed)', async () => {
    const tracker = new ResourceTracker()
    install(tracker)
    let there = true
    trackResource('spool', '/tmp/spool', () => there)
    expect(tracker.leaks()).toHaveLength(1)
    there = false
    expect(await tracker.settle()).toEqual([])
  })

  it('keeps a resource with the tracker that saw it made', () => {
    const first = new ResourceTracker()
    install(first)
    const release = trackResource('manager', 'm')
    setResourceTracker(new ResourceTracker())
    expect(first.leaks()).toHaveLength(1)
    release()
    expect(first.leaks()).toHaveLength(0)
  })
})
