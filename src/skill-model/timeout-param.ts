/**
 * The reserved tool-input property carrying a call's deadline in seconds, in
 * every tier that has one. A skill cannot declare a parameter of this name.
 */
export const TIMEOUT_PARAM = 'timeout_seconds'

/**
 * The JSON Schema of `timeout_seconds` every tier's tool input carries: an
 * optional integer from 1 to `max`. One schema and one description, whatever
 * the tier, so the model sees the same contract everywhere.
 */
export function timeoutProperty(max: number): Readonly<Record<string, unknown>> {
  return {
    type: 'integer',
    minimum: 1,
    maximum: max,
    description: `Deadline in seconds (1 to ${max}); the call is killed past it.`,
  }
}
