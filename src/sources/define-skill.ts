import type { Tool } from '../common/tool.js'
import type { SkillPermissionRequest } from '../skill-model/permission-request.js'
import type { SkillIsolatedToolDeclaration, SkillScriptDeclaration } from './types.js'

/**
 * A programmatic skill: routing metadata, the body the model reads on load,
 * optional files (relative paths) and the capabilities it brings.
 */
export interface SkillDefinition {
  /** The skill id; follows the agentskills.io name rule. */
  readonly name: string
  readonly description: string
  /** Markdown the model reads when the skill is loaded. */
  readonly body: string
  /** A version hint; the source appends a revision so every change is a new version. */
  readonly version?: string
  readonly license?: string
  readonly compatibility?: string
  readonly metadata?: Readonly<Record<string, string>>
  readonly allowedTools?: string
  /** Keep the skill out of the model's catalog; only the host loads it (see `DiscoveredSkill.disableModelInvocation`). */
  readonly disableModelInvocation?: boolean
  readonly channel?: 'inline' | 'handle'
  readonly tools?: readonly Tool[]
  readonly isolatedTools?: readonly SkillIsolatedToolDeclaration[]
  readonly scripts?: readonly SkillScriptDeclaration[]
  /** What its scripts ask to read, write or reach: a request the host may grant (see `SkillDescriptor.permissions`). */
  readonly permissions?: SkillPermissionRequest
  /** Files the skill ships, by relative path (scripts must be among them). */
  readonly files?: Readonly<Record<string, string | Uint8Array>>
}

/** Typed authoring helper: returns its input unchanged, so literals get checked and inferred. */
export function defineSkill<const T extends SkillDefinition>(skill: T): T {
  return skill
}
