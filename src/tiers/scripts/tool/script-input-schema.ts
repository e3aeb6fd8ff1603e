import { TIMEOUT_PARAM, timeoutProperty } from '../../../skill-model/timeout-param.js'
import type { SkillScriptParam } from '../types.js'

/** A JSON Schema (draft 2020-12 subset) object, as providers take it. */
export type JsonSchemaObject = Record<string, unknown>

function paramSchema(param: SkillScriptParam): JsonSchemaObject {
  const description = param.description === undefined ? {} : { description: param.description }
  switch (param.type) {
    case 'enum':
      return { type: 'string', enum: [...(param.values ?? [])], ...description }
    case 'string':
      // The schema states the argv rule so a model can avoid the refusal.
      return {
        type: 'string',
        pattern: '^(?:[^\\x00-][^\\x00]*)?$',
        maxLength: 32768,
        ...description,
      }
    case 'number':
      return { type: 'number', minimum: 0, ...description }
    case 'integer':
      return { type: 'integer', minimum: 0, ...description }
    default:
      return { type: 'boolean', ...description }
  }
}

/**
 * The tool input schema of a script: one property per declared parameter,
 * `required` for required ones, no other properties, plus `timeout_seconds`
 * (integer, 1..`maxTimeoutSeconds`, optional). Numbers are bounded below by 0
 * because argv values may not start with `-`.
 */
export function scriptInputSchema(
  params: readonly SkillScriptParam[],
  maxTimeoutSeconds: number,
): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = Object.create(null)
  for (const param of params) properties[param.name] = paramSchema(param)
  properties[TIMEOUT_PARAM] = timeoutProperty(maxTimeoutSeconds) as JsonSchemaObject
  return {
    type: 'object',
    properties: { ...properties },
    required: params.filter((p) => p.required === true).map((p) => p.name),
    additionalProperties: false,
  }
}
