import { SkillHostError } from '../../common/errors.js'
import type { JsonSchemaObject } from '../../common/schema.js'
import { TIMEOUT_PARAM, timeoutProperty } from '../../skill-model/timeout-param.js'

/** The argument every isolated tool accepts besides its own params (the skill model's `TIMEOUT_PARAM`). */
export const TIMEOUT_ARG = TIMEOUT_PARAM

/**
 * An isolated tool's input schema: its params plus `timeout_seconds`
 * (`timeoutProperty`). A declaration that names `timeout_seconds` itself is
 * `E_SKILL_MANIFEST_INVALID`: the host owns that argument. Used by
 * the manager's tier-2 forge (`createIsolatedForge`).
 */
export function withTimeoutParam(
  params: Readonly<Record<string, unknown>> | undefined,
  max: number,
): JsonSchemaObject {
  const base: JsonSchemaObject = { type: 'object', ...(params ?? {}) }
  const properties = (base.properties ?? {}) as Record<string, unknown>
  if (Object.hasOwn(properties, TIMEOUT_ARG)) {
    throw new SkillHostError(
      'E_SKILL_MANIFEST_INVALID',
      `Isolated tool params may not declare '${TIMEOUT_ARG}'; the host adds it.`,
    )
  }
  return {
    ...base,
    properties: {
      ...properties,
      [TIMEOUT_ARG]: timeoutProperty(max),
    },
  }
}
