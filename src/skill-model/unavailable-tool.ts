/**
 * Why a tool a skill declares is not offered on this host:
 * - `module-imports-off`: the skill's `module:` was not imported (importing runs its code here);
 * - `isolation-off`: the host has no isolated tier (QuickJS);
 * - `scripts-off`: the host has no script tier (`--no-scripts`, or bubblewrap is missing);
 * - `interpreter-not-allowed`: the script's interpreter is not on the host's allow-list;
 * - `undeclared-off`: the skill ships scripts it does not declare, and the host
 *   does not offer `run_<skill>_script` (`scripts.undeclared: 'deny'`, the library default);
 * - `declaration-invalid`: the declaration failed validation.
 */
export type UnavailableToolReason =
  | 'module-imports-off'
  | 'isolation-off'
  | 'scripts-off'
  | 'interpreter-not-allowed'
  | 'undeclared-off'
  | 'declaration-invalid'

/**
 * A tool a skill declares but this host does not offer, under the name it
 * would have had (a module that was not imported is named `module:<path>`:
 * its tool names are known only once it is imported). `reason` and `enable`
 * are the host's own words, safe for a model; `detail` (the validation
 * message, which may quote the declaration) is for hosts and the CLI only.
 */
export interface UnavailableTool {
  readonly name: string
  readonly reason: UnavailableToolReason
  /** What would enable the tool: the library option and the CLI flag. */
  readonly enable: string
  /** Host-side only; never in model-facing output. */
  readonly detail?: string
}

/** What would enable a tool, per reason; one text for the library and the CLI. */
export const UNAVAILABLE_TOOL_ENABLE: Readonly<Record<UnavailableToolReason, string>> =
  Object.freeze({
    'module-imports-off':
      "the host must opt in to importing the skill's module, which runs its code in the host process (library: importModules on the FileSystemSkillSource; CLI: skillhost serve --import-modules)",
    'isolation-off':
      'the host must enable isolated tools (library: the isolation config; skillhost serve always has them)',
    'scripts-off':
      'the host must enable scripts, which run only in the bubblewrap sandbox on Linux (install bubblewrap, e.g. apt-get install bubblewrap, and pass the scripts config; CLI: drop --no-scripts)',
    'interpreter-not-allowed':
      "the host must allow the script's interpreter (library: scripts.interpreters; CLI: --interpreter NAME=PATH)",
    'undeclared-off':
      "the host must allow the skill's undeclared scripts, which run in the same sandbox as declared ones (library: scripts.undeclared: 'allow'; CLI: skillhost serve allows them unless --no-undeclared-scripts)",
    'declaration-invalid':
      "the skill's author must fix the script's declaration in skillhost.yaml (skillhost validate names the problem)",
  })

/** An unavailable tool with the host's enable text for `reason`. */
export function unavailableTool(
  name: string,
  reason: UnavailableToolReason,
  detail?: string,
): UnavailableTool {
  return {
    name,
    reason,
    enable: UNAVAILABLE_TOOL_ENABLE[reason],
    ...(detail === undefined ? {} : { detail }),
  }
}

/** The fields a model may see: name, reason and the enable text, never `detail`. */
export function modelSafeUnavailable(
  tool: UnavailableTool,
): Pick<UnavailableTool, 'name' | 'reason' | 'enable'> {
  return { name: tool.name, reason: tool.reason, enable: tool.enable }
}

/**
 * Rebuilds a list a source supplied: unknown reasons are dropped, the enable
 * text is the host's own (never the source's) and names are cut to 80
 * characters, so a third-party source cannot put its own words in front of a model.
 */
export function normalizeUnavailableTools(tools: unknown): UnavailableTool[] {
  if (!Array.isArray(tools)) return []
  const out: UnavailableTool[] = []
  for (const t of tools) {
    const reason = (t as { reason?: unknown })?.reason
    const name = (t as { name?: unknown })?.name
    if (typeof reason !== 'string' || !Object.hasOwn(UNAVAILABLE_TOOL_ENABLE, reason)) continue
    if (typeof name !== 'string' || name === '') continue
    const detail = (t as { detail?: unknown }).detail
    out.push(
      unavailableTool(
        name.slice(0, 80),
        reason as UnavailableToolReason,
        typeof detail === 'string' ? detail : undefined,
      ),
    )
  }
  return out
}
