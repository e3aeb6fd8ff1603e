import { SkillHostError } from '../../common/errors.js'
import type { QueueOverflow } from './fair-queue.js'

/** Calls made to, or still in, a disposed pool. */
export function disposedError(): SkillHostError {
  return new SkillHostError('E_SKILL_ISOLATED_GUEST_FAILED', 'The guest pool has been disposed.')
}

/** The caller aborted (or its deadline passed) before a worker was free. */
export function waitAbortedError(): SkillHostError {
  return new SkillHostError('E_ABORTED', 'The call was aborted while waiting for a guest.')
}

// Fixed texts: nothing the skill or the host's layout chose reaches the model.
const BUSY_MESSAGES: Record<QueueOverflow, string> = {
  pool: 'Every isolated guest is busy and the wait queue is full; nothing ran. Retry later.',
  owner:
    'This session already has the most isolated calls waiting that it may; nothing ran. Wait for them to finish.',
}

/** A call refused because it would overfill the queue, or its owner's share of it. */
export function busyError(overflow: QueueOverflow): SkillHostError {
  return new SkillHostError('E_SKILL_ISOLATED_BUSY', BUSY_MESSAGES[overflow], {
    data: { queue: overflow },
  })
}
