/**
 * The primitives a host needs to build an agent: tools and their registry,
 * the gate, errors, the turn context and the built-in spool stores. The root
 * entry (`skillhost`) re-exports this module whole and `skillhost/common`
 * re-exports it beside the rest (artifacts, media, spool helpers), so the
 * root's share of the primitives is listed here once.
 */
export {
  ERROR_CODES,
  isSkillHostErrorCode,
  personText,
  renderError,
  SkillHostError,
  type SkillHostErrorCode,
  type SkillHostErrorOptions,
} from './errors.js'
export { FileSpoolStore } from './file-spool-store.js'
export {
  deny,
  GateDenied,
  type GateRequest,
  type GateVerdict,
  type ToolGate,
} from './gate.js'
export { MemorySpoolStore } from './memory-spool-store.js'
export type { JsonSchemaObject, ToolInputSchema } from './schema.js'
export type { SpoolStore } from './spool-store.js'
export {
  defineTool,
  Tool,
  type ToolHandler,
  type ToolResult,
  type ToolSpec,
} from './tool.js'
export {
  type ToolRegistration,
  ToolRegistry,
  type ToolRegistryChange,
} from './tool-registry.js'
export { createTurnContext, type TurnContext, type TurnContextOptions } from './turn-context.js'
