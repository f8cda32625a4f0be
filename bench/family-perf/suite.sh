#!/usr/bin/env bash
# The family's whole CPU perf suite (`test-backend-ops perf -b CPU`) through the family's library
# and through ours: the same source of test-backend-ops.cpp built twice, run op by op, the two
# programs alternating in separate processes (the order reversing every round), ratio = the
# family's time / ours (above 1: ours is faster). See docs/cpu-perf.md.
#
# usage: bench/family-perf/suite.sh FAMILY_SRC [-r ROUNDS] [-o OP,OP..] [-p REGEX] [-w N] [--report]
#   FAMILY_SRC  a ggml-org/ggml checkout (or any folder with tests/test-backend-ops.cpp and the
#               family's CMake project). Nothing is fetched and nothing of it is committed.
#   -r ROUNDS   rounds (default 1); each round runs every op once through each program
#   -o OPS      only these ops (names as the program prints them, comma-separated)
#   -p REGEX    only the cases whose parameters match (the program's own -p, ECMAScript regex)
#   -w N        how many of the worst cases to list at the end (default 20)
#   --report    run nothing: print the tables of the results already in BUILD_DIR/run (e.g. of a
#               run still going or cut off)
# environment:
#   FAMILY_BIN  the family's test-backend-ops built against the family's library; default: built
#               here from FAMILY_SRC in BUILD_DIR/family (Release, GGML_NATIVE, the family's
#               defaults, OpenMP among them)
#   OURS_BIN    the same program built against our library; default: built here by
#               scripts/family-tests.sh (MODES=build) in BUILD_DIR/ours against LIB_DIR
#   LIB_DIR     our libggml.so (default build/release/src, built when missing)
#   BUILD_DIR   where to build and write (default build/family-suite); results in BUILD_DIR/run
#   THREADS     the thread count of both programs. Both set it themselves from
#               std::thread::hardware_concurrency() (ggml_backend_set_n_threads through the
#               registry's proc address, ours and the family's alike), so they always run with
#               the same count; THREADS=N makes both see N processors instead, through a small
#               LD_PRELOAD library built here that answers get_nprocs() (libstdc++'s source of
#               hardware_concurrency on glibc).
#   OP_TIMEOUT  seconds one op's run may take (default 1800); the cases a run cut off did not
#               reach are listed as not reported (a sample of a long op: its first cases)
#
# Each case runs in the program as the family wrote it: a warm-up, then the op repeated for at
# least one second; "us/run" is the mean time of one op. Output: per case the two times (medians
# over the rounds) and the ratio; per op the geomean of its ratios; the overall geomean over all
# cases; the worst cases sorted; then the cases not counted: not supported by one side (or both),
# and cases one side did not report (its run failed or died in or before it). A run that dies is
# rerun without the case it died in (taken from the other side's order of cases), so one crash
# costs one case. Raw results: BUILD_DIR/run/times.tsv (round, side, op, case, us or a status);
# program output: BUILD_DIR/run/logs/. Exit status 0, or 2 on a usage or build error.
set -u

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
FAMILY_SRC=$1
shift
rounds=1; only_ops=""; params=""; n_worst=20; report_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        -r) rounds=${2:?-r needs a number}; shift 2 ;;
        -o) only_ops=${2:?-o needs op names}; shift 2 ;;
        -p) params=${2:?-p needs a regex}; shift 2 ;;
        -w) n_worst=${2:?-w needs a number}; shift 2 ;;
        --report) report_only=1; shift ;;
        *) echo "suite: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if [ ! -f "$FAMILY_SRC/tests/test-backend-ops.cpp" ]; then
    echo "suite: $FAMILY_SRC/tests/test-backend-ops.cpp not found" >&2
    exit 2
fi
FAMILY_SRC=$(cd "$FAMILY_SRC" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build/family-suite}
mkdir -p "$BUILD_DIR" || exit 2
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
OP_TIMEOUT=${OP_TIMEOUT:-1800}
run_dir="$BUILD_DIR/run"
times="$run_dir/times.tsv"

# the tables of times.tsv: per case, per op, overall, the worst, the cases not counted
report() {
python3 - "$times" "$n_worst" <<'EOF'
import sys, math, statistics
from collections import OrderedDict
path, n_worst = sys.argv[1], int(sys.argv[2])
res = OrderedDict()   # (op, case) -> {side: [values]}
for line in open(path):
    r, side, op, case, v = line.rstrip("\n").split("\t")
    res.setdefault((op, case), {"family": [], "ours": []})[side].append(v)

def num(vals):
    return [float(x) for x in vals if x.replace(".", "", 1).isdigit()]

rows, unsupported, missing = [], [], []
for (op, case), d in res.items():
    f, o = num(d["family"]), num(d["ours"])
    if f and o:
        fm, om = statistics.median(f), statistics.median(o)
        rows.append((op, case, fm, om, fm / om))
        continue
    fs = "unsupported" if "unsupported" in d["family"] else ";".join(sorted(set(d["family"]))) or "not reported"
    os_ = "unsupported" if "unsupported" in d["ours"] else ";".join(sorted(set(d["ours"]))) or "not reported"
    if "unsupported" in (fs, os_):
        unsupported.append((op, case, fs, os_))
    else:
        missing.append((op, case, fs, os_))

def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))

print("%12s %12s %7s  %s" % ("family us", "ours us", "ratio", "case"))
for op, case, fm, om, q in rows:
    print("%12.2f %12.2f %7.2f  %s" % (fm, om, q, case))
print()
print("%-28s %6s %8s %8s %8s" % ("op", "cases", "geomean", "worst", "best"))
by_op = OrderedDict()
for op, case, fm, om, q in rows:
    by_op.setdefault(op, []).append(q)
for op, qs in sorted(by_op.items(), key=lambda kv: geo(kv[1])):
    print("%-28s %6d %8.2f %8.2f %8.2f" % (op, len(qs), geo(qs), min(qs), max(qs)))
if rows:
    qs = [q for *_, q in rows]
    print("\noverall geomean %.2f over %d cases; %d below 1.0, %d below 0.9" %
          (geo(qs), len(qs), sum(q < 1 for q in qs), sum(q < 0.9 for q in qs)))
    print("\nworst %d:" % min(n_worst, len(rows)))
    for op, case, fm, om, q in sorted(rows, key=lambda t: t[4])[:n_worst]:
        print("  %5.2f  %s  (family %.2f us, ours %.2f us)" % (q, case, fm, om))
if unsupported:
    print("\nnot counted, not supported (%d): case: family / ours" % len(unsupported))
    for op, case, fs, os_ in unsupported:
        print("  %s: %s / %s" % (case, fs, os_))
if missing:
    print("\nnot counted, failed, died or not reported on one side (%d): case: family / ours" % len(missing))
    for op, case, fs, os_ in missing:
        print("  %s: %s / %s" % (case, fs, os_))
EOF
}
if [ "$report_only" -eq 1 ]; then
    [ -f "$times" ] || { echo "suite: no $times" >&2; exit 2; }
    report
    exit 0
fi

# --- the two programs ---
if [ -z "${FAMILY_BIN:-}" ]; then
    fb="$BUILD_DIR/family"
    echo "suite: building the family's test-backend-ops in $fb (log: $fb.log)"
    if ! { cmake -S "$FAMILY_SRC" -B "$fb" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DGGML_BUILD_TESTS=ON \
                 -DGGML_BUILD_EXAMPLES=OFF &&
           cmake --build "$fb" -j "${JOBS:-2}" --target test-backend-ops; } > "$fb.log" 2>&1; then
        tail -n 20 "$fb.log" >&2
        echo "suite: building the family's program failed" >&2
        exit 2
    fi
    FAMILY_BIN="$fb/bin/test-backend-ops"
fi
if [ -z "${OURS_BIN:-}" ]; then
    lib=${LIB_DIR:-$ROOT/build/release/src}
    if [ ! -f "$lib/libggml.so" ] && [ -z "${LIB_DIR:-}" ]; then
        echo "suite: building our library in $ROOT/build/release"
        { cmake -S "$ROOT" -B "$ROOT/build/release" -DCMAKE_BUILD_TYPE=Release &&
          cmake --build "$ROOT/build/release" -j "${JOBS:-2}" --target ggml; } > "$BUILD_DIR/ours-lib.log" 2>&1
    fi
    if ! BUILD_DIR="$BUILD_DIR/ours" LIB_DIR="$lib" MODES=build bash "$ROOT/scripts/family-tests.sh" "$FAMILY_SRC"; then
        echo "suite: building the program against our library failed" >&2
        exit 2
    fi
    OURS_BIN="$BUILD_DIR/ours/test-backend-ops"
fi
for b in "$FAMILY_BIN" "$OURS_BIN"; do
    if [ ! -x "$b" ]; then
        echo "suite: $b is not an executable" >&2
        exit 2
    fi
done

# --- the thread count ---
preload=()
if [ -n "${THREADS:-}" ]; then
    shim="$BUILD_DIR/nprocs-shim.so"
    printf '%s\n' '#include <stdlib.h>' \
        '/* both programs take their thread count from hardware_concurrency(), i.e. get_nprocs() */' \
        'int get_nprocs(void) { const char *s = getenv("SUITE_NPROCS"); return s ? atoi(s) : 1; }' \
        'int get_nprocs_conf(void) { return get_nprocs(); }' > "$BUILD_DIR/nprocs-shim.c"
    if ! cc -O2 -shared -fPIC "$BUILD_DIR/nprocs-shim.c" -o "$shim"; then
        echo "suite: building the get_nprocs shim failed" >&2
        exit 2
    fi
    preload=(env SUITE_NPROCS="$THREADS" LD_PRELOAD="$shim")
fi

# --- the ops: every op name the program knows, and the fused cases' own names, which only the
# source gives (an op without perf cases prints nothing and costs two short process starts) ---
rm -rf "$run_dir"
mkdir -p "$run_dir/logs" || exit 2
if [ -n "$only_ops" ]; then
    ops=$(printf '%s\n' "$only_ops" | tr ',' '\n')
else
    ops=$({ "$OURS_BIN" --list-ops | awk '/^  [A-Z]/ { print $1 }'
            grep -oE 'return "[A-Z][A-Z0-9_]+";' "$FAMILY_SRC/tests/test-backend-ops.cpp" | sed -E 's/return "(.*)";/\1/'
            "$OURS_BIN" --list-ops | awk '/^  [A-Z]/ { print $1 "_MUL" }'
          } | sort -u)
fi

# a case's params as an ECMAScript regex matching exactly them
# shellcheck disable=SC2016 # the $ is a character to escape
regex_quote() { printf '%s' "$1" | sed 's/[][\\.*+?^$(){}|]/\\&/g'; }
# the params of a case "OP(params)" as a regex matching exactly them (-p matches the params only)
params_regex() { local p=${1#*(}; regex_quote "${p%)}"; echo; }

# "case<TAB>us" or "case<TAB>unsupported" per result line of a plain log (stdin)
parse_results() {
    sed 's/\x1b\[[0-9;]*m//g' | awk '
        match($0, /^  [A-Za-z0-9_]+\(.*\): /) {
            name = substr($0, 3, RLENGTH - 4)
            rest = substr($0, RLENGTH + 1)
            if (rest ~ /not supported/) { print name "\tunsupported"; next }
            if (match(rest, /runs - +[0-9.]+ us\/run/)) {
                t = substr(rest, RSTART, RLENGTH); sub(/runs - +/, "", t); sub(/ us\/run/, "", t)
                print name "\t" t
            }
        }'
}

: > "$times"
declare -A empty_op

# runs one op through one side; appends its rows to times.tsv; reruns without a case it died in
run_side() {
    local r=$1 side=$2 op=$3 bin=$4 excl n_died=0 rc filter log next
    # the cases this side died in during earlier rounds are not run again
    excl=$(awk -F'\t' -v o="$op" -v s="$side" '$2 == s && $3 == o && $5 ~ /^died/ && $4 !~ /^\(/ { print $4 }' "$times" |
           sort -u | while IFS= read -r c; do params_regex "$c"; done | paste -sd'|')
    while :; do
        filter=$params
        if [ -n "$excl" ]; then
            filter="^(?!(?:$excl)\$)${params:+(?=.*(?:$params))}"
        fi
        log="$run_dir/logs/r$r.$side.$op.$n_died"
        timeout "$OP_TIMEOUT" "${preload[@]}" "$bin" perf -b CPU -o "$op" ${filter:+-p "$filter"} > "$log.out" 2> "$log.err"
        rc=$?
        parse_results < "$log.out" > "$log.res"
        awk -v r="$r" -v s="$side" -v o="$op" -F'\t' '{ print r "\t" s "\t" o "\t" $1 "\t" $2 }' "$log.res" >> "$times"
        [ "$rc" -eq 0 ] && break
        if [ "$rc" -eq 124 ]; then
            # cut off by OP_TIMEOUT: the cases not reported are left out, not retried
            printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$side" "$op" "(the run of $op)" "cut off after ${OP_TIMEOUT}s" >> "$times"
            break
        fi
        # died (or cut off): it died in the first case of the other side's order (any round) that
        # this side has not reported in this round; the rerun leaves out that one and the done ones
        next=$(awk -F'\t' -v o="$op" -v s="$side" -v r="$r" '
                   $1 == r && $2 == s && $3 == o { mine[$4] = 1 }
                   $2 != s && $3 == o { if (!($4 in theirs)) { theirs[$4] = 1; ord[n++] = $4 } }
                   END { for (i = 0; i < n; i++) if (!(ord[i] in mine)) { print ord[i]; exit } }' "$times")
        if [ -z "$next" ] || [ "$n_died" -ge 20 ]; then
            printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$side" "$op" "(the run of $op)" "died:exit status $rc" >> "$times"
            break
        fi
        printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$side" "$op" "$next" "died:exit status $rc" >> "$times"
        n_died=$((n_died + 1))
        excl=$(awk -F'\t' -v o="$op" -v s="$side" -v r="$r" '$1 == r && $2 == s && $3 == o && $4 !~ /^\(/ { print $4 }' "$times" |
               sort -u | while IFS= read -r c; do params_regex "$c"; done | paste -sd'|')
    done
}

echo "suite: family: $FAMILY_BIN"
echo "suite: ours:   $OURS_BIN"
echo "suite: $(echo "$ops" | wc -l) op names, $rounds round(s), threads: ${THREADS:-hardware_concurrency ($(nproc --all))}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
    for op in $ops; do
        [ -n "${empty_op[$op]:-}" ] && continue
        if (( r % 2 == 1 )); then order="family ours"; else order="ours family"; fi
        for side in $order; do
            if [ "$side" = family ]; then run_side "$r" family "$op" "$FAMILY_BIN"; else run_side "$r" ours "$op" "$OURS_BIN"; fi
        done
        if ! awk -F'\t' -v o="$op" -v r="$r" '$1 == r && $3 == o { found = 1 } END { exit !found }' "$times"; then
            empty_op[$op]=1
        else
            echo "suite: round $r: $op done ($(cut -d' ' -f1 /proc/loadavg) load)"
        fi
    done
done
echo "suite: load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
report
