# Sourced by scripts/demo.sh, scripts/test.sh and scripts/build-dist.sh: the
# one way they run a long step. with_progress LABEL CMD... runs CMD under
# LABEL and says every 10 s that it is still running, then how long it took:
# a silent minute looks hung. The step's status is returned.
with_progress() {
  local label=$1 started=$SECONDS pid ticks=0 status=0
  shift
  echo "== $label"
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    ticks=$((ticks + 1))
    if ((ticks % 10 == 0)) && kill -0 "$pid" 2>/dev/null; then
      echo "   ... still $label ($((SECONDS - started)) s)"
    fi
  done
  wait "$pid" || status=$?
  echo "   done in $((SECONDS - started)) s"
  return "$status"
}
