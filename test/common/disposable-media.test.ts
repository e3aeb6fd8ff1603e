import { describe, expect, it } from 'vitest'
import { DisposableStore, Media } from '../../src/common/index.js'

describe('DisposableStore', () => {
  it('disposes in reverse order, once, and collects every failure', async () => {
    const store = new DisposableStore()
    const order: string[] = []
    store.add(() => void order.push('fn'))
    store.add({
      dispose: () => {
        order.push('bad')
        throw new Error('bad')
      },
    })
    store.add({ [Symbol.asyncDispose]: async () => void order.push('async') })
    const first = store.dispose()
    await expect(first).rejects.toBeInstanceOf(AggregateError)
    expect(order).toEqual(['async', 'bad', 'fn'])
    expect(store.dispose()).toBe(first)
    await first.catch(() => undefined)
    expect(order).toHaveLength(3)
    expect(store.isDisposed).toBe(true)
  })

  it('runs synchronous steps inside the dispose() call, and waits for asynchronous ones in order', async () => {
    const store = new DisposableStore()
    const order: string[] = []
    store.add(() => void order.push('sync-1'))
    store.add(async () => {
      await new Promise((r) => setTimeout(r, 5))
      order.push('async')
    })
    store.add(() => void order.push('sync-3'))
    const done = store.dispose()
    // sync-3 ran in the call; the async step holds sync-1 until it settles.
    expect(order).toEqual(['sync-3'])
    await done
    expect(order).toEqual(['sync-3', 'async', 'sync-1'])
  })

  it('refuses additions after disposal and disposes the late item', async () => {
    const store = new DisposableStore()
    await store.dispose()
    let disposed = false
    expect(() =>
      store.add(() => {
        disposed = true
      }),
    ).toThrow(/disposed/)
    await Promise.resolve()
    expect(disposed).toBe(true)
  })
})

describe('Media', () => {
  it('is frozen and checks its MIME type', () => {
    const media = new Media({ mimeType: 'image/png', data: new Uint8Array([1]), name: 'a.png' })
    expect(Object.isFrozen(media)).toBe(true)
    expect(() => new Media({ mimeType: 'png', data: new Uint8Array() })).toThrow(TypeError)
    expect(() => new Media({ mimeType: 'image/png; x=<script>', data: new Uint8Array() })).toThrow(
      TypeError,
    )
  })

  it('isInstance recognizes a second copy by its brand', () => {
    expect(Media.isInstance(new Media({ mimeType: 'text/plain', data: new Uint8Array() }))).toBe(
      true,
    )
    expect(Media.isInstance({ [Symbol.for('skillhost.media')]: true })).toBe(true)
    expect(Media.isInstance({ mimeType: 'text/plain', data: new Uint8Array() })).toBe(false)
  })
})
