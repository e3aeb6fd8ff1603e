import { isArtifactClass, type SpooledArtifact } from '../common/artifacts/index.js'
import { SkillHostError } from '../common/errors.js'
import type { SkillManagerConfig } from './types.js'

/**
 * The artifact class the deployer bound to `skill`'s `tool`
 * (`artifactBindings[skill][tool]` → `artifactKinds[kind]()`), or undefined
 * when nothing is bound. Resolved per call, so a kind that stops resolving to
 * an artifact class fails that call with `E_SKILL_ARTIFACT_UNAVAILABLE`
 * instead of spooling under the wrong kind.
 */
export function resolveArtifactClass(
  config: Pick<SkillManagerConfig, 'artifactBindings' | 'artifactKinds'>,
  skill: string,
  tool: string,
): typeof SpooledArtifact | undefined {
  const bindings = config.artifactBindings
  const forSkill = bindings && Object.hasOwn(bindings, skill) ? bindings[skill] : undefined
  if (!forSkill || !Object.hasOwn(forSkill, tool)) return undefined
  const kind = forSkill[tool] as string
  const factory = config.artifactKinds?.[kind]
  const cls = typeof factory === 'function' ? factory() : undefined
  if (!isArtifactClass(cls)) {
    throw new SkillHostError(
      'E_SKILL_ARTIFACT_UNAVAILABLE',
      `Artifact kind '${kind}' bound to '${tool}' is not available.`,
      { data: { skill, tool } },
    )
  }
  return cls as typeof SpooledArtifact
}
