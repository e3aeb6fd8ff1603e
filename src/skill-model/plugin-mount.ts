/**
 * Where a skill in a Claude Code plugin sees its plugin root, read-only, in
 * the sandbox: the one value of `CLAUDE_PLUGIN_ROOT` for such a skill, in its
 * scripts' environment and in its body's `${CLAUDE_PLUGIN_ROOT}`. Fixed, so
 * every call and every load of the skill names the same place.
 */
export const PLUGIN_MOUNT = '/plugin'
