/**
 * The fd on which the closer reports that the sandbox is set up: it writes one
 * byte there before anything else. bwrap's own setup failures ("Can't find
 * source path") exit 1 exactly like a script can, so a run that never wrote
 * the byte is a sandbox that did not start, not a script that failed.
 */
export const STARTED_FD = 4

/**
 * The bash program every sandboxed command runs under: it applies the limits
 * (`setup`, a `ulimit` command built from digits only; bash builtins, so no
 * extra exec), reports the start on `STARTED_FD`, closes every file descriptor
 * above 2, then execs its arguments unchanged ("$@", never parsed by a shell).
 * A limit the kernel refuses ends the shell (exit 125) before the start byte,
 * so the run is a sandbox that did not start, not a script failure. A host can
 * hold descriptors without close-on-exec (a wrapper's `exec 200>lock`, a
 * supervisor's socket, a pty); libuv and bwrap pass those through to the
 * child, where a script could read and write host files with them. The
 * numbers come from the sandbox's own `/proc/self/fd`, so `eval` only ever
 * sees digits. bash, not sh: dash cannot name descriptors above 9. Besides
 * the request's environment the command sees what bash's own `exec` exports,
 * `PWD` (the cwd) and `SHLVL=0`: constants of the shell, never host data.
 * (Removing SHLVL took an exec of `env -u SHLVL`, about 2.5 ms of every
 * call's ~9 ms over bare bwrap; bench/RESULTS.md.)
 */
export function closeInheritedFdsScript(setup = ''): string {
  return (
    (setup === '' ? '' : `${setup} || exit 125; `) +
    `printf 1 >&${STARTED_FD}; ` +
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    'for f in /proc/self/fd/*; do n=${f##*/}; case $n in *[!0-9]*|"") ;; *) [ "$n" -gt 2 ] && eval "exec $n>&-";; esac; done; exec "$@"'
  )
}

/** `closeInheritedFdsScript` without limits. */
export const CLOSE_INHERITED_FDS_SCRIPT = closeInheritedFdsScript()

/** Where the fd closer's bash is looked for, in order. */
export const FD_CLOSER_SHELLS: readonly string[] = ['/usr/bin/bash', '/bin/bash']

/** The argv prefix that runs `argv` under `setup` (see `closeInheritedFdsScript`) with only fds 0–2 open. */
export function closingInheritedFds(shell: string, argv: readonly string[], setup = ''): string[] {
  return [shell, '-c', closeInheritedFdsScript(setup), 'skillhost-fd-closer', ...argv]
}
