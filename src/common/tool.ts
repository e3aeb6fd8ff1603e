import type { Media } from './media.js'
import {
  type CompiledSchema,
  compileInputSchema,
  type JsonSchemaObject,
  type ToolInputSchema,
} from './schema.js'
import type { TurnContext } from './turn-context.js'

/** What a tool handler may return. Anything else is a bad response at the skill boundary. */
export type ToolResult = string | Uint8Array | Media | Media[]

/** Calls a tool's logic with arguments its schema already validated. */
export type ToolHandler<A = unknown> = (
  args: A,
  ctx: TurnContext,
) => ToolResult | Promise<ToolResult>

/** Everything needed to build a `Tool`. */
export interface ToolSpec<A = unknown> {
  name: string
  description: string
  inputSchema: ToolInputSchema<A>
  handler: ToolHandler<A>
  /** Defaults to false. Skill wrappers always force false. */
  trusted?: boolean
  meta?: Readonly<Record<string, unknown>>
}

/**
 * Provider-safe tool names: what OpenAI, Anthropic and Gemini all accept.
 * Every skill tool is checked against this before registration.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

const HANDLER = Symbol.for('skillhost.tool.handler')
const TOOL_BRAND = Symbol.for('skillhost.tool')

/**
 * A callable capability. The input schema is compiled once at construction;
 * `execute` validates arguments (`E_TOOL_INVALID_ARGS`) before the handler
 * runs. Instances are frozen: a tool cannot be altered after it is built.
 */
export class Tool<A = unknown> {
  readonly name: string
  readonly description: string
  readonly trusted: boolean
  readonly meta: Readonly<Record<string, unknown>>
  readonly inputSchema: ToolInputSchema<A>
  readonly #schema: CompiledSchema<A>
  // Stored as unknown so a Tool<{ x: string }> is usable wherever a Tool is:
  // the schema, not the type parameter, guarantees what the handler receives.
  readonly #handler: ToolHandler<unknown>

  constructor(spec: ToolSpec<A>) {
    if (typeof spec.name !== 'string' || spec.name.length === 0) {
      throw new TypeError('Tool name must be a non-empty string')
    }
    if (typeof spec.handler !== 'function')
      throw new TypeError(`Tool '${spec.name}' needs a handler`)
    this.name = spec.name
    this.description = String(spec.description ?? '')
    this.trusted = spec.trusted === true
    this.meta = Object.freeze({ ...(spec.meta ?? {}) })
    this.inputSchema = spec.inputSchema
    this.#schema = compileInputSchema(spec.name, spec.inputSchema)
    this.#handler = spec.handler as ToolHandler<unknown>
    Object.defineProperty(this, HANDLER, { value: spec.handler })
    Object.freeze(this)
  }

  /** The JSON Schema to put in a provider's tool definition. */
  get jsonSchema(): JsonSchemaObject {
    return this.#schema.jsonSchema
  }

  /** Validates `args` against the input schema and returns them typed. */
  validate(args: unknown): Promise<A> {
    return this.#schema.validate(args)
  }

  /**
   * Validates `args`, then runs the handler. Always answers with a promise: a
   * synchronous throw (invalid arguments, a throwing handler) is a rejection.
   */
  execute(args: unknown, ctx: TurnContext): Promise<ToolResult> {
    const { validateSync } = this.#schema
    if (validateSync === undefined) return this.#executeAsync(args, ctx)
    // A synchronous validator needs no hop, and a handler's own native
    // promise is answered as it is (`Promise.resolve` returns it; an async
    // function returning it would add two hops).
    try {
      return Promise.resolve(this.#handler(validateSync(args), ctx))
    } catch (err) {
      return Promise.reject(err)
    }
  }

  async #executeAsync(args: unknown, ctx: TurnContext): Promise<ToolResult> {
    const valid = await this.#schema.validate(args)
    return this.#handler(valid, ctx)
  }

  /** Recognizes tools across two copies of the package. */
  static isInstance(value: unknown): value is Tool {
    return (
      value instanceof Tool ||
      (typeof value === 'object' &&
        value !== null &&
        (value as Record<symbol, unknown>)[TOOL_BRAND] === true)
    )
  }

  /**
   * The raw handler of a tool, for host-side rewrapping that validates once
   * itself. Works across package copies; undefined for foreign objects.
   */
  static handlerOf<T>(tool: Tool<T>): ToolHandler<T> | undefined {
    const handler = (tool as unknown as Record<symbol, unknown>)[HANDLER]
    return typeof handler === 'function' ? (handler as ToolHandler<T>) : undefined
  }
}
Object.defineProperty(Tool.prototype, TOOL_BRAND, { value: true })

/** Typed authoring helper: returns a `Tool`, inferring the argument type from the schema. */
export function defineTool<A>(spec: ToolSpec<A>): Tool<A> {
  return new Tool(spec)
}
