/**
 * `tiers/module/`: tier 1, live tools a source imported, each rebuilt into
 * a host-owned wrapper (gate, error containment, response checks, artifact
 * binding, provenance). This face is what the manager wires: the rewrap of
 * an imported tool. Nothing outside `tiers/module/` imports any other file of it
 * (test/layering.test.ts).
 */

export { type ModuleToolBinding, wrapModuleTool } from './wrap-module-tool.js'
