import { describe, expect, it } from 'vitest'
import { TurnLock } from '../../../src/tiers/scripts/workspace/turn-lock.js'

// A script call holds its shared turn from before its run until its changes
// are read (`WorkspaceCall`), so the turn is a held release, not a callback.
describe('TurnLock.take', () => {
  it('shares turns, makes an exclusive turn wait for them, and a release counts once', async () => {
    const lock = new TurnLock()
    const first = await lock.take(false)
    const second = await lock.take(false)
    let writing = false
    const write = lock.run(true, async () => {
      writing = true
    })
    // A second release of the same turn must not let the write in while another call holds one.
    first()
    first()
    await new Promise((r) => setTimeout(r, 0))
    expect(writing).toBe(false)
    second()
    await write
    expect(writing).toBe(true)
  })

  it('queues a shared turn behind a waiting exclusive one', async () => {
    const lock = new TurnLock()
    const held = await lock.take(false)
    const order: string[] = []
    const write = lock.run(true, async () => {
      order.push('write')
    })
    const call = lock.take(false).then((release) => {
      order.push('call')
      release()
    })
    held()
    await Promise.all([write, call])
    expect(order).toEqual(['write', 'call'])
  })
})
