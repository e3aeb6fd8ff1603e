import { SkillHostError } from './errors.js'
import type { Tool } from './tool.js'

/** A change in a registry, forwarded by adapters (e.g. MCP `tools/list_changed`). */
export interface ToolRegistryChange {
  readonly kind: 'registered' | 'unregistered'
  readonly tool: Tool
}

/** Returned by `register`: disposing it unregisters exactly that tool object. */
export interface ToolRegistration {
  readonly tool: Tool
  dispose(): void
}

/**
 * Tools by name. Registering a taken name throws `E_TOOL_NAME_TAKEN`;
 * unregistering removes only the exact object registered, so a stale handle
 * can never remove a newer tool that reuses the name.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>()
  readonly #listeners = new Set<(change: ToolRegistryChange) => void>()

  /** Adds `tool`; throws `E_TOOL_NAME_TAKEN` when the name is in use. */
  register(tool: Tool): ToolRegistration {
    if (this.#tools.has(tool.name)) {
      throw new SkillHostError(
        'E_TOOL_NAME_TAKEN',
        `A tool named '${tool.name}' is already registered.`,
        {
          data: { tool: tool.name },
        },
      )
    }
    this.#tools.set(tool.name, tool)
    this.#emit({ kind: 'registered', tool })
    return { tool, dispose: () => void this.unregister(tool) }
  }

  /** Removes `tool` if (and only if) that very object is registered. */
  unregister(tool: Tool): boolean {
    if (this.#tools.get(tool.name) !== tool) return false
    this.#tools.delete(tool.name)
    this.#emit({ kind: 'unregistered', tool })
    return true
  }

  /** The tool registered under `name`, if any. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name)
  }

  /** True when a tool is registered under `name`. */
  has(name: string): boolean {
    return this.#tools.has(name)
  }

  /** All tools in registration order. */
  all(): Tool[] {
    return [...this.#tools.values()]
  }

  /** All registered names in registration order. */
  names(): string[] {
    return [...this.#tools.keys()]
  }

  /** Number of registered tools. */
  get size(): number {
    return this.#tools.size
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onDidChange(listener: (change: ToolRegistryChange) => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  #emit(change: ToolRegistryChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change)
      } catch {
        // A listener's failure must not undo or block a registration.
      }
    }
  }
}
