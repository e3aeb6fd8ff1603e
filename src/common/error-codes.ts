/**
 * Every stable error code skillhost raises, with its HTTP-like status and a
 * one-line meaning. The table is the single source of truth: `SkillHostError`
 * takes its status from here, and `docs/errors.md` is checked against it.
 */
export const ERROR_CODES = {
  // configuration
  E_INVALID_SKILLS_CONFIG: { status: 400, summary: 'The manager configuration is invalid.' },
  // generic tools and gates
  E_TOOL_INVALID_ARGS: { status: 400, summary: 'Tool arguments failed validation.' },
  E_TOOL_NAME_TAKEN: { status: 409, summary: 'A registry already holds a tool with this name.' },
  E_TOOL_NOT_FOUND: { status: 404, summary: 'No tool with this name is registered.' },
  E_TOOL_DENIED: { status: 403, summary: 'The gate explicitly refused the call.' },
  E_TOOL_GATE_UNAVAILABLE: { status: 503, summary: 'The gate is missing or broken; nothing ran.' },
  E_INTERNAL: { status: 500, summary: 'The host failed; details are kept host-side.' },
  E_ABORTED: { status: 499, summary: 'The turn was aborted by the caller.' },
  // the command line (skillhost's CLI only)
  E_CLI_USAGE: { status: 400, summary: 'A command line is wrong: a flag, a value or an argument.' },
  E_CLI_ROOT_UNUSABLE: {
    status: 404,
    summary: 'A skill root given on the command line is missing, not a folder, or unreadable.',
  },
  E_CLI_FAILED: { status: 500, summary: 'A CLI command failed for a reason no other code names.' },
  // manifests and sources
  E_SKILL_MANIFEST_INVALID: {
    status: 422,
    summary: 'SKILL.md, its sidecar or a descriptor is invalid.',
  },
  E_SKILL_SOURCE_FAILED: { status: 502, summary: 'A skill source failed to discover or read.' },
  E_SKILL_SOURCE_PATH_REJECTED: {
    status: 400,
    summary: 'A path is absolute, escapes its root or is unsafe.',
  },
  E_SKILL_SOURCE_TOO_LARGE: { status: 413, summary: 'A skill file exceeds the source size cap.' },
  E_SKILL_DIGEST_MISMATCH: {
    status: 502,
    summary: 'A skill file a server sent is not what its listed digest and size say.',
  },
  E_SKILL_NOT_PINNED: {
    status: 409,
    summary: 'A lockfile is in force and the skill is not in it, or changed since it was pinned.',
  },
  E_SKILL_NOT_SEARCHED: {
    status: 422,
    summary: 'A folder was not searched for skills: below the depth limit, or inside a skill.',
  },
  // lifecycle
  E_SKILL_NOT_FOUND: { status: 404, summary: 'No skill with this id is in the catalog.' },
  E_SKILL_SHADOWED: {
    status: 409,
    summary: 'An earlier skill with the same id wins; this one is shadowed.',
  },
  E_SKILL_ALREADY_LOADED: { status: 409, summary: 'The skill is already loaded.' },
  E_SKILL_NOT_LOADED: { status: 409, summary: 'The skill is not loaded (or was unloaded).' },
  E_SKILL_TOOL_DUPLICATE: { status: 422, summary: 'A skill declares the same tool name twice.' },
  E_SKILL_TOOL_COLLISION: { status: 409, summary: 'A skill tool name is taken or reserved.' },
  E_SKILL_MANAGER_DISPOSED: { status: 410, summary: 'The manager has been disposed.' },
  E_SKILL_VERSION_GONE: {
    status: 410,
    summary:
      'A session pinned a skill version its source no longer holds, so it cannot be restored.',
  },
  // tier 1
  E_SKILL_TOOL_FAILED: { status: 500, summary: 'A skill module tool threw.' },
  E_SKILL_TOOL_BAD_RESPONSE: {
    status: 502,
    summary: 'A skill tool returned a value of an invalid shape.',
  },
  E_SKILL_ARTIFACT_UNAVAILABLE: {
    status: 500,
    summary: 'The bound artifact kind is not registered.',
  },
  // tier 2
  E_SKILL_ISOLATED_TIMEOUT: {
    status: 504,
    summary: 'An isolated tool ran past its deadline and was killed.',
  },
  E_SKILL_ISOLATED_RESOURCE_EXHAUSTED: {
    status: 507,
    summary: 'An isolated tool exhausted its memory or stack.',
  },
  E_SKILL_ISOLATED_THREW: { status: 422, summary: 'An isolated tool threw inside its guest.' },
  E_SKILL_ISOLATED_BAD_RESULT: {
    status: 502,
    summary: 'An isolated tool returned a non-JSON or oversized result.',
  },
  E_SKILL_ISOLATED_GUEST_FAILED: {
    status: 500,
    summary: 'The guest runtime could not be created or crashed.',
  },
  E_SKILL_ISOLATED_BUSY: {
    status: 503,
    summary: "The guest pool's wait queue (or this session's share of it) is full; nothing ran.",
  },
  // tier 3
  E_SKILL_SCRIPT_DENIED: { status: 403, summary: 'The gate explicitly refused the script.' },
  E_SKILL_SCRIPT_GATE_UNAVAILABLE: {
    status: 503,
    summary: 'The gate is missing or broken; the script did not run.',
  },
  E_SKILL_SCRIPT_POLICY_WIDENED: {
    status: 403,
    summary: 'The derived policy is wider than the session policy.',
  },
  E_SKILL_SCRIPT_TIMEOUT: {
    status: 504,
    summary: 'A script ran past its deadline and was killed.',
  },
  E_SKILL_SCRIPT_FAILED: { status: 500, summary: 'A script exited nonzero.' },
  E_SKILL_SCRIPT_INVALID_ARGS: {
    status: 400,
    summary: 'A script parameter value is unsafe or invalid.',
  },
  E_SKILL_SCRIPT_DEPS_MISSING: {
    status: 424,
    summary: 'A script declares packages its interpreter lacks, and provisioning is off.',
  },
  E_SKILL_ENV_BUILD_FAILED: {
    status: 424,
    summary: 'A script environment could not be built: pip could not install a package it needs.',
  },
  E_SKILL_REQUIREMENTS_INVALID: {
    status: 422,
    summary: 'A script requirement is outside the accepted subset (a URL, path or option).',
  },
  E_SKILL_WORKSPACE_FAILED: {
    status: 500,
    summary:
      'A skill copy, the session workspace or a script environment could not be made, opened or disposed.',
  },
  E_SKILL_WORKSPACE_FULL: {
    status: 507,
    summary: 'The session workspace would exceed its size cap.',
  },
  E_WORKSPACE_RESTORE_REFUSED: {
    status: 502,
    summary:
      'A stored session workspace holds a name, size or content the host will not restore; nothing was written.',
  },
  E_SANDBOX_UNAVAILABLE: {
    status: 503,
    summary: 'The sandbox (bubblewrap) cannot run on this machine.',
  },
  // spool and artifacts
  E_ARTIFACT_NOT_FOUND: { status: 404, summary: 'No spooled artifact with this id.' },
  E_ARTIFACT_READ_INVALID: {
    status: 400,
    summary: 'An artifact read asked for an invalid range or pattern.',
  },
  E_SPOOL_FAILED: {
    status: 503,
    summary: "The spool store's backend (a database) failed or is unreachable.",
  },
  E_SPOOL_FULL: {
    status: 507,
    summary:
      'A put would take the spool store past its quota (bytes or items); nothing was stored.',
  },
  // shared sessions
  E_SESSION_STORE_FAILED: {
    status: 503,
    summary:
      'The shared session store (a database) failed or missed its deadline; the session is kept.',
  },
} as const satisfies Record<string, { status: number; summary: string }>

/** A stable skillhost error code. */
export type SkillHostErrorCode = keyof typeof ERROR_CODES

/** True when `code` is one of skillhost's stable codes. */
export function isSkillHostErrorCode(code: unknown): code is SkillHostErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code)
}
