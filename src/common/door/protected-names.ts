/**
 * Version-control state that contained code and the model may read but never
 * change: a planted `core.fsmonitor` in `.git/config` or a hook in
 * `.git/hooks/` runs on the host at the user's next `git status`, outside any
 * sandbox (Codex re-protects `.git` in writable roots for the same reason).
 * Mounted read-only inside the sandbox, refused by every host write and never
 * copied out (the door, `copy-out.ts`). `docs/security.md` lists what else
 * was considered and why it is not here.
 */
export const PROTECTED_NAMES: ReadonlySet<string> = new Set(['.git', '.hg', '.svn'])

/**
 * True when `name` is one of `PROTECTED_NAMES` as a tool could read it: any
 * letter case (`.GIT` is `.git` on a case-insensitive filesystem), trailing
 * dots and spaces dropped (`.git.`, as Windows drops them), and the 8.3 short
 * name `git~1`. No legitimate output is named like that.
 */
export function isProtectedName(name: string): boolean {
  const folded = name.toLowerCase().replace(/[. ]+$/, '')
  return PROTECTED_NAMES.has(folded) || folded === 'git~1'
}

/** The first component of a `/`-separated relative path that is protected, if any. */
export function protectedPart(rel: string): string | undefined {
  return rel.split('/').find(isProtectedName)
}
