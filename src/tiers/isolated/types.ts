import type { JsonSchemaObject } from '../../common/schema.js'

/**
 * A tier-2 tool a skill declares: JavaScript evaluated in a guest with no
 * ambient authority. `source` is one complete `async (args) => { ... }`
 * expression; it receives the arguments after they passed `params`.
 */
export interface SkillIsolatedTool {
  name: string
  description: string
  /** JSON Schema for the arguments. Absent means "any JSON object". */
  params?: JsonSchemaObject
  /** A complete `async (args) => { ... }` expression. */
  source: string
}

/**
 * Hard ceilings for one guest evaluation. Every field is a cap the guest
 * cannot raise; `memoryBytes` is enforced by the size of the WebAssembly
 * memory itself, not by the interpreter's own accounting.
 */
export interface IsolationLimits {
  /** WebAssembly memory of one guest, in bytes (default 32 MiB, at least 16 MiB). */
  memoryBytes: number
  /** Interpreter stack, in bytes (default 256 KiB); deeper recursion is a catchable error. */
  stackBytes: number
  /** UTF-8 bytes of the result's JSON text (default 1 MiB). */
  maxResultBytes: number
  /** Console entries kept per call (default 100); later ones are dropped and flagged. */
  maxConsoleEntries: number
  /** UTF-8 bytes of console text kept per call (default 64 KiB). */
  maxConsoleBytes: number
  /** UTF-8 bytes of JSON arguments, into the tool and into each host global (default 256 KiB). */
  maxArgsBytes: number
  /** Host-global calls one evaluation may make in total (default 1000); later calls reject. */
  maxHostCalls: number
}

/**
 * A host capability a guest may call by name. It receives the guest's JSON
 * arguments (already parsed, never guest objects) and the call's abort signal,
 * which fires when the call ends, times out, is aborted or its guest is killed.
 * Its result must be JSON-serializable; `undefined` reaches the guest as `undefined`.
 */
export type IsolatedGlobal = (args: unknown, options: { signal: AbortSignal }) => Promise<unknown>

/** How a deployer configures tier 2. Nothing a skill declares widens it. */
export interface SkillIsolationConfig {
  /** The only capabilities a guest has: async host functions, by global name. */
  globals?: Record<string, IsolatedGlobal>
  /** Module sources a guest may load by name with `await import(name)`. */
  modules?: Record<string, string>
  limits?: Partial<IsolationLimits>
  /** Where guests come from, e.g. `createQuickJsGuest().resolveGuest`. */
  resolveGuest?: GuestResolver
  /**
   * The fair-share key of calls made with this config (see
   * `GuestResolveOptions.owner`). Default: the manager gives each of its
   * instances its own.
   */
  owner?: unknown
  /** Upper bound of the model-supplied `timeout_seconds`. */
  maxTimeoutSeconds: number
  /** Timeout used when the model supplies none. */
  defaultTimeoutSeconds: number
}

/** One line a guest wrote with `console.*`. */
export interface GuestConsoleEntry {
  level: 'log' | 'info' | 'warn' | 'error' | 'debug'
  text: string
}

/** One evaluation handed to a guest. */
export interface GuestRunRequest {
  source: string
  /** Validated JSON arguments. */
  args: unknown
  /** Soft deadline: the guest stops itself after this long. The caller kills it shortly after. */
  timeoutMs: number
  /**
   * Calls a declared host global. `signal` is the guest's view of the call;
   * the caller also aborts every host call when the evaluation ends.
   */
  callGlobal(name: string, args: unknown, signal: AbortSignal): Promise<unknown>
}

/** What a successful evaluation produced. */
export interface GuestRunResult {
  /** JSON text of the tool's result (`null` when it returned `undefined`). */
  json: string
  console: GuestConsoleEntry[]
  /** True when console entries or bytes were dropped at a cap. */
  consoleTruncated: boolean
}

/**
 * One guest runs exactly one evaluation. `run` rejects with a `SkillHostError`
 * carrying an `E_SKILL_ISOLATED_*` code; `kill` guarantees that nothing of
 * the evaluation keeps running (for real guests) and is idempotent.
 */
export interface IsolatedGuest {
  run(request: GuestRunRequest): Promise<GuestRunResult>
  kill(): void
}

/** What a guest resolver is told about the evaluation it provides a guest for. */
export interface GuestResolveOptions {
  /** The caller's abort signal: an abort while waiting for a guest rejects. */
  signal: AbortSignal
  limits: IsolationLimits
  /** Names of the declared host globals. */
  globals: string[]
  modules: Record<string, string>
  /**
   * Who the call is for: one key per session (an MCP session, a manager). A
   * shared pool takes turns between owners and caps each, so one session
   * cannot starve the others. Keys compare by identity; calls without one
   * share a single owner.
   */
  owner?: unknown
}

/** Provides a fresh guest for one evaluation. */
export type GuestResolver = (options: GuestResolveOptions) => Promise<IsolatedGuest>
