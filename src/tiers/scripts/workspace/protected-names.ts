/**
 * Version-control state that contained code and the model may read but never
 * change: a planted `core.fsmonitor` in `.git/config` or a hook in
 * `.git/hooks/` runs on the host at the user's next `git status`, outside any
 * sandbox (Codex re-protects `.git` in writable roots for the same reason).
 * Mounted read-only inside the sandbox and refused by every host write.
 * `docs/security.md` lists what else was considered and why it is not here.
 */
export const PROTECTED_NAMES: ReadonlySet<string> = new Set(['.git', '.hg', '.svn'])

/** The first component of a `/`-separated relative path that is protected, if any. */
export function protectedPart(rel: string): string | undefined {
  return rel.split('/').find((part) => PROTECTED_NAMES.has(part))
}
