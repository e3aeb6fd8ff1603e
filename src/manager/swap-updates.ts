import { renderError } from '../common/errors.js'
import type { TurnContext } from '../common/turn-context.js'
import type { RefreshFailure } from './catalog-view.js'
import type { LoadedSkills } from './loaded-skills.js'
import type { ManagerEvents } from './manager-events.js'
import type { SkillLoader } from './skill-loader.js'
import type { TurnProjector } from './turn-projector.js'

/** The manager's parts a swap changes. */
export interface SwapParts {
  readonly loaded: LoadedSkills
  readonly loader: SkillLoader
  readonly projector: TurnProjector
  readonly events: ManagerEvents
}

/** What one swap pass did. */
export interface SwapOutcome {
  /** Skills now loaded (and projected into the context) at the catalog's version. */
  readonly swapped: { id: string; from: string; to: string }[]
  /** Skills whose new version failed to prepare, with the model-facing error. */
  readonly failed: { id: string; code: string; message: string }[]
  /** Why each failed skill kept its loaded version, as `refreshOutcomes` reports it. */
  readonly kept: ReadonlyMap<string, RefreshFailure>
}

/**
 * Moves each loaded skill in `ids` to the catalog's version, one at a time:
 * the new record is prepared completely first, and only then is the old one
 * stripped from `ctx`, retired and replaced, so a version that fails to load
 * leaves the loaded one in place. Run on the manager's mutation queue.
 */
export async function swapUpdates(
  ids: readonly string[],
  ctx: TurnContext,
  parts: SwapParts,
): Promise<SwapOutcome> {
  const { loaded, loader, projector, events } = parts
  const swapped: { id: string; from: string; to: string }[] = []
  const failed: { id: string; code: string; message: string }[] = []
  for (const skillId of ids) {
    const old = loaded.get(skillId)
    if (!old) continue
    try {
      const record = await loader.replacement(old, ctx)
      if (!record) continue
      projector.strip(ctx, skillId)
      loaded.retire(old)
      loaded.add(record)
      projector.project(ctx, record)
      swapped.push({ id: skillId, from: old.version, to: record.version })
      events.emit({ kind: 'swapped', id: skillId, ctx })
    } catch (err) {
      // renderError: the model-facing text, host paths redacted, `CODE: message`.
      const text = renderError(err)
      const colon = text.indexOf(':')
      failed.push({ id: skillId, code: text.slice(0, colon), message: text.slice(colon + 2) })
    }
  }
  const kept = new Map<string, RefreshFailure>(
    failed.map((f) => [
      f.id,
      {
        code: f.code,
        message: `Its new version failed to load (${f.code}: ${f.message}), so the loaded version stays.`,
      },
    ]),
  )
  return { swapped, failed, kept }
}
