import { SkillHostError } from '../../common/errors.js'
import type { JsonSchemaObject } from '../../common/schema.js'
import { Tool } from '../../common/tool.js'
import { TIMEOUT_PARAM, timeoutProperty } from '../../skill-model/timeout-param.js'
import { renderIsolatedResult } from './render-isolated-result.js'
import { runIsolatedTool } from './run-isolated-tool.js'
import type { SkillIsolatedTool, SkillIsolationConfig } from './types.js'

/** The argument every isolated tool accepts besides its own params (the skill model's `TIMEOUT_PARAM`). */
export const TIMEOUT_ARG = TIMEOUT_PARAM

/** Options for `forgeIsolatedTool`. */
export interface ForgeIsolatedToolOptions {
  /** The registered name (default: `tool.name`); the manager may prefix it. */
  name?: string
  meta?: Readonly<Record<string, unknown>>
}

/**
 * An isolated tool's input schema: its params plus `timeout_seconds`
 * (`timeoutProperty`). A declaration that names `timeout_seconds` itself is
 * `E_SKILL_MANIFEST_INVALID`: the host owns that argument. Used by
 * `forgeIsolatedTool` and the manager's tier-2 forge alike.
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

/**
 * Wraps an isolated tool as a host `Tool` (always untrusted). The tool's
 * schema is its params plus an optional `timeout_seconds`; the handler runs
 * `runIsolatedTool` with the turn's abort signal and returns the text of
 * `renderIsolatedResult`. Unless `config.owner` is set, the turn context's id
 * is the call's pool owner: an MCP session keeps one context, so sessions
 * take turns on a shared pool.
 */
export function forgeIsolatedTool(
  config: SkillIsolationConfig,
  tool: SkillIsolatedTool,
  options: ForgeIsolatedToolOptions = {},
): Tool<Record<string, unknown>> {
  return new Tool<Record<string, unknown>>({
    name: options.name ?? tool.name,
    description: tool.description,
    inputSchema: withTimeoutParam(tool.params, config.maxTimeoutSeconds),
    trusted: false,
    meta: options.meta,
    handler: async (args, ctx) => {
      const { [TIMEOUT_ARG]: timeoutSeconds, ...rest } = args ?? {}
      const result = await runIsolatedTool(config, tool, rest, {
        signal: ctx.abortSignal,
        timeoutSeconds: timeoutSeconds as number | undefined,
        owner: config.owner ?? ctx.id,
      })
      return renderIsolatedResult(result)
    },
  })
}
