#!/usr/bin/env bash
# Tries the project as a new user would: clones the repository into a temporary folder, gives
# PoCL an empty kernel cache, runs the README's two commands exactly as the README writes them (its
# first two ```sh blocks), and says what passed. The commands' full logs are kept in the temporary
# folder; the clone is removed when both passed (kept, to look into, when one failed).
#
# Usage: bash scripts/fresh-check.sh [repository [branch]]
#   default: the repository this script lives in, at its current branch (committed work only)
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${1:-$here}"
branch="${2:-}"
if [ -z "$branch" ] && [ -z "${1:-}" ]; then
    branch=$(git -C "$here" rev-parse --abbrev-ref HEAD)
    if [ -n "$(git -C "$here" status --porcelain --untracked-files=no)" ]; then
        echo "fresh-check: note: $here has uncommitted changes; the clone has only what is committed"
    fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fresh-check.XXXXXX")
clone="$work/repo"
echo "== fresh-check: git clone $repo${branch:+ (branch $branch)}"
if ! git clone --quiet ${branch:+--branch "$branch"} "$repo" "$clone"; then
    echo "fresh-check: FAILED: git clone"
    exit 1
fi
echo "   commit $(git -C "$clone" log -1 --format='%h %s' | cut -c1-90)"
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
echo "   machine: ${cpu:-unknown CPU}, $(nproc 2>/dev/null || echo '?') cores, $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"

# an empty PoCL kernel cache, as on a machine that never ran OpenCL (scripts/test.sh gives each of
# its stages a fresh one as well)
export POCL_CACHE_DIR="$work/pocl-cache" XDG_CACHE_HOME="$work/cache"
mkdir -p "$POCL_CACHE_DIR" "$XDG_CACHE_HOME"

# the README's commands: the first line of each of its first two ```sh blocks
mapfile -t commands < <(awk '/^```sh$/ { if ((getline line) > 0) { print line; n++ } } n == 2 { exit }' "$clone/README.md")
if [ ${#commands[@]} -ne 2 ]; then
    echo "fresh-check: FAILED: cannot find the README's two commands (its first two \`\`\`sh blocks)"
    exit 1
fi

status=0
results=()
for i in 0 1; do
    cmd="${commands[$i]}"
    log="$work/command-$((i + 1)).log"
    echo "== fresh-check: $cmd   (from a fresh clone, output in $log)"
    start=$(date +%s)
    (cd "$clone" && bash -c "$cmd") >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ]; then
        results+=("passed  $cmd   (${secs} s)")
        tail -n 8 "$log" | sed 's/^/   | /'
    else
        status=1
        results+=("FAILED  $cmd   (exit $rc after ${secs} s; log: $log)")
        tail -n 40 "$log" | sed 's/^/   | /'
    fi
done

echo "== fresh-check: summary"
for r in "${results[@]}"; do
    echo "   $r"
done
if [ $status -eq 0 ]; then
    # the clone and the caches go; the two commands' logs stay for reading
    rm -rf "$clone" "$POCL_CACHE_DIR" "$XDG_CACHE_HOME"
    echo "fresh-check: both README commands passed on a fresh clone with an empty PoCL cache (logs in $work)"
else
    echo "fresh-check: FAILED (the clone and its logs are kept in $work)"
fi
exit $status
