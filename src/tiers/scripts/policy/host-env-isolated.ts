import { SkillHostError } from '../../../common/errors.js'

/**
 * The one home of the rule that scripts never see the host's environment:
 * a configuration must say `hostEnvIsolated: true`. Throws
 * `E_INVALID_SKILLS_CONFIG` naming the field otherwise. Called once per
 * path: by `validateSkillScriptConfig` (the manager's), and by the public
 * entries that take a configuration no validator saw (`runSkillScript`,
 * `runScriptOnce`).
 */
export function assertHostEnvIsolated(config: unknown): void {
  const isolated =
    typeof config === 'object' &&
    config !== null &&
    (config as { hostEnvIsolated?: unknown }).hostEnvIsolated === true
  if (!isolated) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      'scripts.hostEnvIsolated must be true: scripts always run with an empty environment.',
    )
  }
}
