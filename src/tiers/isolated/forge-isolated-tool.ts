import { SkillHostError } from '../../common/errors.js'
import type { JsonSchemaObject } from '../../common/schema.js'
import { Tool } from '../../common/tool.js'
import { renderIsolatedResult } from './render-isolated-result.js'
import { runIsolatedTool } from './run-isolated-tool.js'
import type { SkillIsolatedTool, SkillIsolationConfig } from './types.js'

/** The argument every isolated tool accepts besides its own params. */
export const TIMEOUT_ARG = 'timeout_seconds'

/** Options for `forgeIsolatedTool`. */
export interface ForgeIsolatedToolOptions {
  /** The registered name (default: `tool.name`); the manager may prefix it. */
  name?: string
  meta?: Readonly<Record<string, unknown>>
}

function withTimeoutParam(params: JsonSchemaObject | undefined, max: number): JsonSchemaObject {
  const base: JsonSchemaObject = params ?? { type: 'object' }
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
      [TIMEOUT_ARG]: {
        type: 'number',
        minimum: 1,
        maximum: max,
        description: `Seconds before the call is killed (1 to ${max}).`,
      },
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
