import type { ResolvedSkillChannel, SkillChannel } from './types.js'

/**
 * The `auto` channel's budget: a body of at most this many characters (UTF-16
 * units, about 2,000 tokens) is inlined, a longer one becomes a handle. Small
 * bodies then cost the model no extra read, and large ones never flood it.
 */
export const AUTO_INLINE_MAX_CHARS = 8_000

/** The channel a body of `body` takes under `channel`: `auto` resolved by `AUTO_INLINE_MAX_CHARS`. */
export function resolveBodyChannel(channel: SkillChannel, body: string): ResolvedSkillChannel {
  if (channel !== 'auto') return channel
  return body.length <= AUTO_INLINE_MAX_CHARS ? 'inline' : 'handle'
}
