import { createRequire } from 'node:module'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Ajv, ValidateFunction } from 'ajv'
import { assertArgumentDepth } from './argument-depth.js'
import { SkillHostError } from './errors.js'
import { linearRegExp, NonLinearPatternError } from './linear-regexp.js'

/** A plain JSON Schema object, as providers expect in tool definitions. */
export type JsonSchemaObject = { readonly [key: string]: unknown }

/** What a tool accepts as its input schema: a Standard Schema v1 validator or a JSON Schema. */
export type ToolInputSchema<A = unknown> = StandardSchemaV1<unknown, A> | JsonSchemaObject

/** A compiled input schema: one `validate` for arguments and one JSON Schema for providers. */
export interface CompiledSchema<A> {
  readonly jsonSchema: JsonSchemaObject
  validate(value: unknown): Promise<A>
  /**
   * The same check as `validate`, answered synchronously (returns the
   * validated copy or throws `E_TOOL_INVALID_ARGS`); present only when the
   * schema's validator is synchronous (JSON Schema through ajv), so a caller
   * can skip a promise hop per call.
   */
  readonly validateSync?: (value: unknown) => A
}

/**
 * Distinct schemas one ajv compiles before it is replaced. ajv keeps every
 * schema it compiled (its cache and its code scope hold them), so a server
 * that makes tools for every session must not hand it each session's new
 * schema objects: compiled validators are shared by content
 * (`compiledByContent`), and past this many distinct ones a fresh ajv
 * starts (validators already made keep working; the old one is freed with
 * the last of them).
 */
export const AJV_MAX_SCHEMAS = 2048
let compiledByContent = new Map<string, ValidateFunction>()

/** One validator per distinct schema content, however many tools (sessions) carry it. */
function compileShared(schema: object): ValidateFunction {
  let key: string | undefined
  try {
    key = JSON.stringify(schema)
  } catch {
    key = undefined // not JSON (a cycle): ajv refuses or compiles it alone
  }
  const known = key === undefined ? undefined : compiledByContent.get(key)
  if (known) return known
  if (compiledByContent.size >= AJV_MAX_SCHEMAS) {
    sharedAjv = undefined
    compiledByContent = new Map()
  }
  const check = ajv().compile(schema)
  if (key !== undefined) compiledByContent.set(key, check)
  return check
}

let sharedAjv: Ajv | undefined
function ajv(): Ajv {
  // Schemas can come from skills: their regexes run on RE2 semantics, never backtracking.
  // ajv is loaded with the first JSON Schema compiled, not with `skillhost/common`:
  // a command that compiles none (`skillhost validate`) skips its ~70 modules.
  sharedAjv ??= new (createRequire(import.meta.url)('ajv') as typeof import('ajv')).Ajv({
    allErrors: false,
    strict: false,
    useDefaults: true,
    code: { regExp: linearRegExp },
  })
  return sharedAjv
}

/** True when `value` carries the Standard Schema v1 `~standard` interface. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const std = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.[
    '~standard'
  ]
  return (
    typeof std === 'object' &&
    std !== null &&
    std.version === 1 &&
    typeof std.validate === 'function'
  )
}

function standardToJsonSchema(schema: StandardSchemaV1): JsonSchemaObject {
  // Zod 4 and others expose a JSON Schema converter; the spec's optional
  // `jsonSchema` extension is used when present, else an open object schema.
  const std = schema['~standard'] as unknown as {
    jsonSchema?: { input?: (o: { target: string }) => JsonSchemaObject }
  }
  const viaSpec = std.jsonSchema?.input?.({ target: 'draft-2020-12' })
  if (viaSpec) return viaSpec
  const toJson = (schema as unknown as { toJSONSchema?: () => JsonSchemaObject }).toJSONSchema
  if (typeof toJson === 'function') return toJson.call(schema)
  return { type: 'object' }
}

function describeIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((p) => String(typeof p === 'object' ? p.key : p))
        .join('.')
      return path ? `${path}: ${issue.message}` : issue.message
    })
    .join('; ')
}

/**
 * Compiles an input schema once. JSON Schemas are compiled with ajv (a broken
 * schema fails here, at construction, not on the first call); Standard Schema
 * validators are used as they are.
 */
export function compileInputSchema<A>(
  toolName: string,
  schema: ToolInputSchema<A>,
): CompiledSchema<A> {
  if (isStandardSchema(schema)) {
    const std = schema as StandardSchemaV1<unknown, A>
    return {
      jsonSchema: standardToJsonSchema(std),
      async validate(value) {
        assertArgumentDepth(toolName, value)
        const result = await std['~standard'].validate(value)
        if (result.issues) {
          throw new SkillHostError(
            'E_TOOL_INVALID_ARGS',
            `Invalid arguments for '${toolName}': ${describeIssues(result.issues)}`,
          )
        }
        return result.value
      },
    }
  }
  let check: ValidateFunction
  try {
    check = compileShared(schema as object)
  } catch (cause) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      cause instanceof NonLinearPatternError
        ? `Tool '${toolName}' has a schema pattern that is not RE2 syntax (no backreferences or lookaround).`
        : `Tool '${toolName}' has an invalid JSON Schema.`,
      {
        cause,
      },
    )
  }
  const validateSync = (value: unknown): A => {
    assertArgumentDepth(toolName, value)
    // ajv applies defaults in place; validate a copy so the caller's object stays as it was.
    const copy = value === undefined ? {} : structuredClone(value)
    if (!check(copy)) {
      const detail = (check.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
        .join('; ')
      throw new SkillHostError(
        'E_TOOL_INVALID_ARGS',
        `Invalid arguments for '${toolName}': ${detail}`,
      )
    }
    return copy as A
  }
  return {
    jsonSchema: schema as JsonSchemaObject,
    validateSync,
    async validate(value) {
      return validateSync(value)
    },
  }
}
