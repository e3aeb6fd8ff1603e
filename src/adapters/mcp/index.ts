/**
 * `skillhost/mcp`: skills over the Model Context Protocol. The server side:
 * one session per client over a manager (`createSkillMcpServer`), served on
 * stdio or Streamable HTTP, with skill files as resources and the Skills
 * Extension; the client side: `McpSkillSource`, a remote server's skills as
 * a `SkillSource`.
 */

export type { WorkspaceFileOut } from '../../common/internal.js'
/** What `serveMcpHttp`'s `workspaceStore` implements (`skillhost/postgres`: `PostgresWorkspaceStore`). */
export type {
  SessionWorkspaceStore,
  StoredWorkspaceFile,
  WorkspaceStoreChange,
} from '../../manager/internal.js'
export {
  createSkillMcpServer,
  type McpToolCallEvent,
  type SkillMcpServerOptions,
  type SkillMcpSession,
} from './create-skill-mcp-server.js'
export {
  PROBE_PATHS,
  READINESS_DEADLINE_MS,
  type ReadinessReport,
  type ReadinessState,
} from './http-probes.js'
export type { HttpLimit } from './http-replies.js'
export { JSON_BODY_SHAPE } from './json-shape.js'
export { type McpHttpServer, type ServeMcpHttpOptions, serveMcpHttp } from './serve-http.js'
export { SERVE_HTTP_LIMITS } from './serve-http-options.js'
export {
  type McpSessionFactoryOptions,
  type McpSessionScope,
  type McpStdioServer,
  type ServeMcpStdioOptions,
  serveMcpStdio,
} from './serve-stdio.js'
export {
  parseSkillResourceUri,
  SKILL_RESOURCES_PAGE,
  serveSkillResources,
  skillResourceUri,
} from './skill-resources.js'
export { McpSkillSource, type McpSkillSourceOptions } from './skills-extension/mcp-skill-source.js'
export {
  GetSkillResultSchema,
  ListSkillsResultSchema,
  SKILLS_EXTENSION_ID,
  SKILLS_EXTENSION_LIMITS,
  SKILLS_LIST_PAGE,
  SKILLS_LIST_PAGE_MAX,
  type SkillEntry,
  SkillEntrySchema,
  type SkillResourceEntry,
} from './skills-extension/protocol.js'
export {
  type ReadServedSkillFile,
  type SkillsExtensionOptions,
  serveSkillsExtension,
} from './skills-extension/serve-skills-extension.js'
export { toCallToolError, toCallToolResult } from './to-call-tool-result.js'
export {
  WORKSPACE_RESOURCE_SCHEME,
  WORKSPACE_RESOURCES_PAGE,
  WorkspaceResources,
  workspaceResourceKey,
} from './workspace-resources.js'
