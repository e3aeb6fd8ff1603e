import { SkillHostError } from '../../../common/errors.js'

// The warm sandbox's supervisor: the bash program that is the sandbox's pid 1
// and runs each call as a fresh child (docs/security.md, "Warm sandbox").

/** Where the warm sandbox's control folder (FIFOs, the supervisor's bash) is bound, read-only. */
export const WARM_CONTROL_MOUNT = '/.skillhost-warm'

/** Most fields one request may hold, and most bytes all of them together. */
export const MAX_REQUEST_FIELDS = 4_096
export const MAX_REQUEST_BYTES = 1024 * 1024

/**
 * The supervisor, run as `bash -c SCRIPT name SCRATCH SKILL PINNED CP RM
 * CHMOD ENV SLEEP`. As pid 1 it receives only signals it has a handler for:
 * bash catches SIGINT (ignored here, default again in each call) and
 * SIGCHLD (reaping), and never uses `read -t`, which would make it catch
 * SIGTERM and the other terminating signals. It empties the scratch and refills `/skill` (`clean`), says
 * `R`, then per request (a count line, then each field as a length line and
 * that many bytes): opens the call's FIFOs, forks the call (stdin
 * `/dev/null`, cwd, `ulimit`, `B` once limits hold, stdout/stderr to the
 * FIFOs, every other fd closed, `env -i` with exactly the call's
 * environment), waits for it, kills every other process of the namespace
 * (`kill -KILL -1`, atomic against fork), waits until `/proc` lists only
 * itself, says `X <status>`, cleans, says `R`. Anything unexpected exits,
 * which ends the sandbox: fail closed.
 */
export const SUPERVISOR_SCRIPT = `LC_ALL=C
shopt -s nullglob dotglob
scratch=$1 skill=$2 pinned=$3 cp=$4 rm=$5 chmod=$6 envp=$7 sleep=$8 ctl=${WARM_CONTROL_MOUNT}
trap '' INT
empty() {
  local f=("$1"/*)
  ((\${#f[@]} == 0)) && return 0
  "$rm" -rf -- "\${f[@]}" 2>/dev/null
  f=("$1"/*)
  ((\${#f[@]} == 0)) && return 0
  "$chmod" -R u+rwX -- "\${f[@]}" 2>/dev/null
  "$rm" -rf -- "\${f[@]}" 2>/dev/null
  f=("$1"/*)
  ((\${#f[@]} == 0))
}
clean() {
  local roots=()
  [[ -n $scratch ]] && roots+=("$scratch")
  [[ -n $skill ]] && roots+=("$skill")
  ((\${#roots[@]} == 0)) && return 0
  "$chmod" 0755 -- "\${roots[@]}" || return 1
  [[ -z $scratch ]] || empty "$scratch" || return 1
  [[ -z $skill ]] || { empty "$skill" && "$cp" -R --preserve=mode,timestamps -- "$pinned/." "$skill/"; } || return 1
}
settle() {
  local p alive t
  for ((t = 0; t < 200; t++)); do
    alive=0
    for p in /proc/[0-9]*; do [[ $p == /proc/1 ]] || { alive=1; break; }; done
    ((alive)) || return 0
    kill -KILL -1 2>/dev/null
    ((t < 20)) || "$sleep" 0.01
  done
  return 1
}
call() {
  local k=\${F[1]} m i pid code
  [[ $k =~ ^[0-9]{1,3}$ ]] || return 1
  local L=("\${F[@]:2:k}")
  i=$((2 + k)); m=\${F[i]}
  [[ $m =~ ^[0-9]{1,4}$ ]] || return 1
  local E=("\${F[@]:i+1:m}") A=("\${F[@]:i+1+m}")
  ((\${#A[@]} >= 1)) || return 1
  exec 5>"$ctl/o" 6>"$ctl/e" || return 1
  (
    trap - INT
    exec </dev/null
    builtin cd -- "\${F[0]}" 2>/dev/null || exit 125
    ulimit "\${L[@]}" 2>/dev/null || exit 125
    printf 'B\\n'
    exec 1>&5 2>&6
    for f in /proc/self/fd/*; do n=\${f##*/}; case $n in *[!0-9]*|"") ;; *) [ "$n" -gt 2 ] && eval "exec $n>&-";; esac; done
    exec "$envp" -i -- "\${E[@]}" "\${A[@]}"
  ) &
  pid=$!
  exec 5>&- 6>&-
  wait "$pid"; code=$?
  kill -KILL -1 2>/dev/null
  settle || return 1
  printf 'X %d\\n' "$code"
  clean || return 1
  printf 'R\\n'
}
clean || exit 1
printf 'R\\n'
while :; do
  IFS= read -r n || exit 0
  [[ $n =~ ^[0-9]{1,4}$ ]] && ((n >= 4 && n <= ${MAX_REQUEST_FIELDS})) || exit 1
  F=(); total=0
  for ((j = 0; j < n; j++)); do
    IFS= read -r len || exit 1
    [[ $len =~ ^[0-9]{1,7}$ ]] || exit 1
    total=$((total + len)); ((total <= ${MAX_REQUEST_BYTES})) || exit 1
    v=
    if ((len > 0)); then IFS= read -r -N "$len" v || exit 1; fi
    ((\${#v} == len)) || exit 1
    F+=("$v")
  done
  call || exit 1
done
`

/** One call as the supervisor runs it. */
export interface WarmCallRequest {
  /** The call's cwd inside the sandbox. */
  readonly cwd: string
  /** The `ulimit` options and values (digits and `-x` words only). */
  readonly limits: readonly string[]
  /** `NAME=value` entries: the call's whole environment. */
  readonly env: readonly string[]
  readonly argv: readonly string[]
}

/**
 * The request's bytes: the field count, then each field as its byte length
 * and its bytes (cwd, the limit count and words, the env count and entries,
 * argv). Throws `E_INTERNAL` past the supervisor's bounds or on a NUL, which
 * the supervisor would refuse (it ends on anything it does not expect).
 */
export function encodeWarmRequest(call: WarmCallRequest): Buffer {
  const fields = [
    call.cwd,
    String(call.limits.length),
    ...call.limits,
    String(call.env.length),
    ...call.env,
    ...call.argv,
  ]
  const parts = fields.map((f) => Buffer.from(f, 'utf8'))
  const bytes = parts.reduce((n, p) => n + p.length, 0)
  if (
    fields.length > MAX_REQUEST_FIELDS ||
    bytes > MAX_REQUEST_BYTES ||
    fields.some((f) => f.includes('\0'))
  ) {
    throw new SkillHostError('E_INTERNAL', 'A warm sandbox request is out of bounds.')
  }
  const chunks: Buffer[] = [Buffer.from(`${fields.length}\n`)]
  for (const p of parts) chunks.push(Buffer.from(`${p.length}\n`), p)
  return Buffer.concat(chunks)
}

/** A report line of the supervisor: ready, began (limits hold), or exited with a status. */
export type SupervisorReport =
  | { readonly kind: 'ready' }
  | { readonly kind: 'began' }
  | { readonly kind: 'exited'; readonly status: number }

/** The longest report line; anything longer ends the sandbox. */
export const MAX_REPORT_LINE = 16

/** Parses one report line; undefined for anything else (which ends the sandbox). */
export function parseSupervisorReport(line: string): SupervisorReport | undefined {
  if (line === 'R') return { kind: 'ready' }
  if (line === 'B') return { kind: 'began' }
  const exited = /^X ([0-9]{1,3})$/.exec(line)
  if (exited?.[1] === undefined) return undefined
  const status = Number(exited[1])
  return status <= 255 ? { kind: 'exited', status } : undefined
}
