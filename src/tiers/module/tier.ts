/**
 * What the manager wires of tier 1: the host-owned rewrap of an imported
 * tool. Nothing outside `tiers/module/` imports any other file of it
 * (test/layering.test.ts).
 */

export { type ModuleToolBinding, wrapModuleTool } from './wrap-module-tool.js'
