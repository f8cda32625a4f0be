#!/usr/bin/env bash
# Builds the ggml family's own op-test program, tests/test-backend-ops.cpp, against this library
# exactly as a user would (C++17, only include/ on the include path, linked to the shared libggml)
# and runs it. Fetches nothing: give it a checkout of ggml-org/ggml (or llama.cpp's ggml/
# folder, or any folder with tests/test-backend-ops.cpp). Nothing of the family is copied into
# this repository. See docs/compatibility.md.
#
# usage: scripts/family-tests.sh FAMILY_DIR [extra test-backend-ops arguments, e.g. -o ADD]
#
#   BUILD_DIR   where to build (default: build/family-tests); the library goes to BUILD_DIR/lib
#   LIB_DIR     use the libggml.so already built there (e.g. build/release/src) instead of building one
#   JOBS        parallel build jobs (default: 2)
#   CXX         the C++ compiler (default: c++)
#   CXXFLAGS_EXTRA  more compiler arguments for the test program (e.g. a private stub source
#               while functions are missing; the family's file itself is never changed)
#   MODES       what to run (default: "test grad"):
#                 test: test-backend-ops test on every device other than the CPU (each is
#                       compared with the CPU backend, as the family's program does);
#                 grad: test-backend-ops grad -b CPU (gradients against finite differences),
#                       one op at a time (every op of the program's --list-ops, or those of
#                       -o A,B): a run that dies (the program asserts where no gradient rule
#                       exists) is recorded as "died" in that case and the op resumes after it
#                       (the next run picks the cases after it by their params with -p, in the
#                       order of the program's support mode), so one abort costs one case, not
#                       the run, and no case runs twice.
#                 build: only build the program (BUILD_DIR/test-backend-ops), run nothing.
#   OP_TIMEOUT  grad: seconds per program run (default 0: no limit); an op cut off is marked "timeout"
#   GRAD_CHUNK  grad: at most this many cases per resumed run (default 100; bounds the -p regex)
#
# Prints each run's "N/M tests passed" lines and final verdict, and a per-op table (cases passed,
# failed, not supported, skipped as too large, and the case the program died in; "(null)" is a case
# whose constructor returned NULL) in BUILD_DIR/MODE.ops.txt; the library's own error messages
# (constructor refusals among them) are listed, counted, in BUILD_DIR/MODE.errors.txt. The full
# logs are BUILD_DIR/MODE.log (stdout) and BUILD_DIR/MODE.stderr.log. Exit status: 0 when every run passed, 1 when a run
# failed, 2 on a usage or build error.

set -u

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

FAMILY_DIR=$1
shift
SRC="$FAMILY_DIR/tests/test-backend-ops.cpp"
if [ ! -f "$SRC" ]; then
    echo "family-tests: $SRC not found (give the path of a ggml checkout)" >&2
    exit 2
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build/family-tests}
JOBS=${JOBS:-2}
CXX=${CXX:-c++}
MODES=${MODES:-"test grad"}
CXXFLAGS_EXTRA=${CXXFLAGS_EXTRA:-}
mkdir -p "$BUILD_DIR" || exit 2
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)

if [ -n "${LIB_DIR:-}" ]; then
    LIBDIR=$(cd "$LIB_DIR" 2>/dev/null && pwd)
    if [ -z "$LIBDIR" ] || [ ! -f "$LIBDIR/libggml.so" ]; then
        echo "family-tests: no libggml.so in LIB_DIR=$LIB_DIR" >&2
        exit 2
    fi
else
    echo "family-tests: building libggml in $BUILD_DIR/lib"
    if ! cmake -S "$ROOT" -B "$BUILD_DIR/lib" -DCMAKE_BUILD_TYPE=Release -DGGML_BUILD_TESTS=OFF > "$BUILD_DIR/cmake.log" 2>&1 ||
       ! cmake --build "$BUILD_DIR/lib" -j "$JOBS" --target ggml >> "$BUILD_DIR/cmake.log" 2>&1; then
        tail -n 30 "$BUILD_DIR/cmake.log" >&2
        echo "family-tests: building the library failed (log: $BUILD_DIR/cmake.log)" >&2
        exit 2
    fi
    LIB=$(find "$BUILD_DIR/lib" -name 'libggml.so' -print -quit)
    if [ -z "$LIB" ]; then
        echo "family-tests: no libggml.so under $BUILD_DIR/lib" >&2
        exit 2
    fi
    LIBDIR=$(dirname "$LIB")
fi

# the family's program as it is: no flag or define of ours beyond the include path. The object is
# rebuilt only when the source, one of our headers or the arguments changed (it takes minutes).
OBJ="$BUILD_DIR/test-backend-ops.o"
STAMP="$BUILD_DIR/compile.args"
ARGS="$CXX -std=c++17 -O2 -I $ROOT/include $SRC $CXXFLAGS_EXTRA"
stale=0
if [ ! -f "$OBJ" ] || [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$ARGS" ] || [ "$SRC" -nt "$OBJ" ]; then
    stale=1
else
    for h in "$ROOT"/include/*.h; do
        if [ "$h" -nt "$OBJ" ]; then
            stale=1
        fi
    done
fi
if [ "$stale" -eq 1 ]; then
    echo "family-tests: compiling $SRC against $ROOT/include"
    rm -f "$OBJ" "$STAMP"
    # shellcheck disable=SC2086
    if ! "$CXX" -std=c++17 -O2 -I "$ROOT/include" $CXXFLAGS_EXTRA -c "$SRC" -o "$OBJ" > "$BUILD_DIR/compile.log" 2>&1; then
        grep -m 40 'error' "$BUILD_DIR/compile.log" >&2
        echo "family-tests: the family's test program does not compile against our headers (log: $BUILD_DIR/compile.log)" >&2
        exit 2
    fi
fi
# shellcheck disable=SC2086 # CXXFLAGS_EXTRA is a list of arguments
if ! "$CXX" -std=c++17 -O2 -I "$ROOT/include" $CXXFLAGS_EXTRA "$OBJ" -o "$BUILD_DIR/test-backend-ops" \
        -L "$LIBDIR" -Wl,-rpath,"$LIBDIR" -lggml -lpthread >> "$BUILD_DIR/compile.log" 2>&1; then
    grep -m 40 -E 'error|undefined' "$BUILD_DIR/compile.log" >&2
    echo "family-tests: linking the family's test program failed (log: $BUILD_DIR/compile.log)" >&2
    exit 2
fi
echo "$ARGS" > "$STAMP"

PROG="$BUILD_DIR/test-backend-ops"

# The program colours OK / FAIL with terminal escapes even into a file: strip them to count.
strip_colours() { sed 's/\x1b\[[0-9;]*m//g'; }

# Per-op rows "op passed failed not-supported skipped died [note]" of a plain log (stdin).
# test: one line per case, "  OP(params): [details] OK|FAIL" or "... not supported [...]".
# grad: a computed case prints "  OP(params): OK" first, then its result line (named SUM when
# the suite summed a non-scalar output, so the op is taken from the first line), "skipping large
# tensors" or "not supported"; a case refused early prints only its "not supported" line. A header
# line with no result after it is the case the program died in. OPNAME/EXTRA_DIED/NOTE add the
# cases an earlier run of that op died in, and a note, to its row.
op_rows() {
    awk -v grad="$1" -v opname="${2:-}" -v extra_died="${3:-0}" -v note="${4:-}" '
        function count(arr, o) { arr[o]++; seen[o] = 1; pending = 0 }
        match($0, /^  [A-Za-z0-9_()]+\(/) {
            op = substr($0, 3, RLENGTH - 3)
            if (pending) { op = pop }
            if ($0 ~ /not supported/)               { count(ns, op); next }
            if ($0 ~ /skipping large tensors/)      { count(sk, op); next }
            if ($0 ~ /MAA = |nonfinite gradient/)   { next }
            if ($0 ~ /FAIL$/)                       { count(bad, op); next }
            if ($0 ~ /OK$/) {
                if (!grad || pending) { count(ok, op) } else { pending = 1; pop = op; seen[op] = 1 }
            }
        }
        END {
            if (pending && note == "") { died[pop]++ }
            if (opname != "" && (extra_died > 0 || note != "")) { died[opname] += extra_died; seen[opname] = 1 }
            for (o in seen) {
                printf "%-26s %7d %7d %14d %8d %6d%s\n", o, ok[o], bad[o], ns[o], sk[o], died[o], \
                       (o == opname && note != "") ? "  " note : ""
            }
        }'
}

# writes BUILD_DIR/MODE.ops.txt from rows (stdin) and prints the run's totals line
write_table() {
    local mode=$1 log=$2 errlog=$3 rc=$4 table="$BUILD_DIR/$1.ops.txt" totals n_errors
    {
        printf "%-26s %7s %7s %14s %8s %6s\n" "op" "passed" "failed" "not supported" "skipped" "died"
        sort
    } > "$table"
    totals=$(awk 'NR > 1 { p += $2; f += $3; n += $4; s += $5; d += $6 }
                  END { printf "%d passed, %d failed, %d not supported, %d skipped, %d died", p, f, n, s, d }' "$table")
    grep -E '^ggml_[a-z0-9_]+: ' "$errlog" | sort | uniq -c | sort -rn > "$BUILD_DIR/$mode.errors.txt"
    n_errors=$(awk '{ n += $1 } END { print n + 0 }' "$BUILD_DIR/$mode.errors.txt")
    echo "family-tests: $mode: exit status $rc, $totals, $n_errors library error messages" \
         "(log: $log; per op: $table; errors: $BUILD_DIR/$mode.errors.txt)"
}

# the caller's -o and -p, taken apart for the grad loop; everything else goes through as given
user_ops=""
user_params=""
other_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        -o) user_ops=${2:-}; shift 2 || shift ;;
        -p) user_params=${2:-}; shift 2 || shift ;;
        *) other_args+=("$1"); shift ;;
    esac
done
passthrough=("${other_args[@]}")
[ -n "$user_ops" ] && passthrough+=(-o "$user_ops")
[ -n "$user_params" ] && passthrough+=(-p "$user_params")

run_test_mode() {
    local log="$BUILD_DIR/test.log" errlog="$BUILD_DIR/test.stderr.log" clean="$BUILD_DIR/test.plain.log" rc
    echo "family-tests: test-backend-ops test ${passthrough[*]}"
    # stderr apart: the library's messages would otherwise split the program's result lines
    "$PROG" test "${passthrough[@]}" > "$log" 2> "$errlog"
    rc=$?
    strip_colours < "$log" > "$clean"
    grep -E '^(Backend [0-9]+/|  [0-9]+/[0-9]+ tests passed|[0-9]+/[0-9]+ backends passed|  Backend .*: (OK|FAIL))' "$clean"
    op_rows 0 < "$clean" | write_table test "$log" "$errlog" "$rc"
    return $rc
}

# grad: the op's cases, one "vars" line each, in the program's order (its support mode lists every
# case the grad mode visits, with the same filters); empty when the listing failed
list_cases() {
    "$PROG" support -b CPU -o "$1" ${user_params:+-p "$user_params"} 2> /dev/null | strip_colours |
        sed -nE 's/^  [A-Za-z0-9_]+\((.*)\): (SUPPORTED|NOT SUPPORTED)$/\1/p'
}

# grad: splits a run's plain log (stdin) into its cases as the program printed them: writes
# "n<TAB>vars<TAB>done|died" for each case (n counts from 0) to $1, and each case line prefixed
# "n<TAB>" to stdout. A case ends at its result ("not supported", "skipping large tensors", "FAIL",
# or a second "OK"); the header "  OP(vars): " with nothing after it is the case the program died in.
split_cases() {
    awk -v index_file="$1" '
        BEGIN { n = 0 }
        function close_case(state) { printf "%d\t%s\t%s\n", n, vars, state > index_file; n++; open_ = 0 }
        match($0, /^  [A-Za-z0-9_]+\(/) {
            v = substr($0, RLENGTH + 1); sub(/\): .*$/, "", v); sub(/\):$/, "", v)
            if (!open_) { open_ = 1; vars = v; header = 0 }
            print n "\t" $0
            if ($0 ~ /MAA = |nonfinite gradient/)                   { next }
            if ($0 ~ /not supported|skipping large tensors|FAIL$/) { close_case("done"); next }
            if ($0 ~ /OK$/) { if (header) { close_case("done") } else { header = 1 } }
        }
        END { if (open_) { close_case("died") } }'
}

run_grad_mode() {
    local log="$BUILD_DIR/grad.log" errlog="$BUILD_DIR/grad.stderr.log" clean="$BUILD_DIR/grad.plain.log"
    local rows="$BUILD_DIR/grad.rows" died_list="$BUILD_DIR/grad.died.txt" part="$BUILD_DIR/grad.part.log"
    local cases="$BUILD_DIR/grad.cases" idx="$BUILD_DIR/grad.part.idx" kept="$BUILD_DIR/grad.op.plain"
    local timeout_s=${OP_TIMEOUT:-0} chunk=${GRAD_CHUNK:-100} status=0
    local ops op rc filter note n_died n_cases pos hi dead sel died_at died_vars
    if [ -n "$user_ops" ]; then
        ops=$(printf '%s\n' "$user_ops" | tr ',' '\n')
    else
        ops=$("$PROG" --list-ops | awk '/^  [A-Z]/ { print $1 }')
    fi
    : > "$log"; : > "$errlog"; : > "$clean"; : > "$rows"; : > "$died_list"
    echo "family-tests: test-backend-ops grad -b CPU, op by op ($(echo "$ops" | wc -l) ops) ${other_args[*]}"
    for op in $ops; do
        list_cases "$op" > "$cases"
        n_cases=$(wc -l < "$cases")
        : > "$kept"
        n_died=0
        dead=""     # the params of cases known to die (an earlier copy with the same params died)
        pos=-1      # -1: the first run, every case; then the case to resume at (0-based, in $cases)
        while :; do
            note=""
            if [ "$pos" -lt 0 ]; then
                filter=$user_params
                hi=$n_cases
            else
                # the next cases, at most $chunk, picked by their params; a copy with the same params
                # elsewhere runs too and is left out of the counts below
                hi=$((pos + chunk < n_cases ? pos + chunk : n_cases))
                filter=$(awk -v lo="$pos" -v hi="$hi" -v dead="$dead" '
                    BEGIN { nd = split(dead, d, "\n"); for (i = 1; i <= nd; i++) is_dead[d[i]] = 1 }
                    NR - 1 >= lo && NR - 1 < hi && !($0 in is_dead) && !($0 in seen) {
                        seen[$0] = 1
                        gsub(/[][\\.*+?^$(){}|]/, "\\\\&")
                        out = out (out == "" ? "" : "|") $0
                    }
                    END { if (out != "") print "^(?:" out ")$" }' "$cases")
                if [ -z "$filter" ]; then   # every case left in the range is known to die
                    n_died=$((n_died + $(awk -v lo="$pos" -v hi="$hi" 'NR - 1 >= lo && NR - 1 < hi' "$cases" | wc -l)))
                    pos=$hi
                    [ "$pos" -lt "$n_cases" ] && continue
                    break
                fi
            fi
            echo "== $op${filter:+ -p $filter}" >> "$log"
            timeout "$timeout_s" "$PROG" grad -b CPU -o "$op" ${filter:+-p "$filter"} "${other_args[@]}" \
                > "$part" 2>> "$errlog"
            rc=$?
            # a run that died leaves its last case's header, "  OP(params): ", without a newline
            [ -s "$part" ] && [ -n "$(tail -c 1 "$part")" ] && echo >> "$part"
            cat "$part" >> "$log"
            strip_colours < "$part" > "$part.plain"
            cat "$part.plain" >> "$clean"
            # which case of $cases each printed case is: the next one with its params among those the
            # filter picked (the first run: all); the program visits them in this order
            split_cases "$idx" < "$part.plain" > "$part.num"
            sel=$(awk -F '\t' -v lo="$pos" -v hi="$hi" -v cases="$cases" '
                BEGIN {
                    n = 0
                    while ((getline line < cases) > 0) { all[n] = line; n++ }
                    if (lo >= 0) { for (i = lo; i < hi; i++) pick[all[i]] = 1 }
                    j = 0
                }
                {
                    if (lo < 0 && $3 == "done") keep[$1] = 1
                    if (lost) next
                    while (j < n && (lo >= 0 && !(all[j] in pick) || all[j] != $2)) j++
                    if (j >= n) { lost = 1; next }
                    at = j++
                    if ($3 == "died") { print "died " at; exit }
                    if (at >= lo && at < hi) keep[$1] = 1
                }
                END { for (k in keep) print "keep " k }' "$idx")
            # the cases that belong to this run, complete, go to the op'"'"'s counts
            awk -F '\t' -v sel="$sel" 'BEGIN { n = split(sel, l, "\n"); for (i = 1; i <= n; i++) if (l[i] ~ /^keep /) keep[substr(l[i], 6)] = 1 }
                ($1 in keep) { sub(/^[0-9]+\t/, ""); print }' "$part.num" >> "$kept"
            died_at=$(printf '%s\n' "$sel" | sed -n 's/^died //p')
            if [ "$rc" -eq 124 ]; then
                note="timeout after ${timeout_s}s"
            elif [ "$rc" -gt 1 ] && [ -n "$died_at" ] && [ "$n_cases" -gt 0 ]; then
                died_vars=$(sed -n "$((died_at + 1))p" "$cases")
                if [ "$pos" -lt 0 ] || { [ "$died_at" -ge "$pos" ] && [ "$died_at" -lt "$hi" ]; }; then
                    echo "$op($died_vars): exit status $rc" >> "$died_list"
                    n_died=$((n_died + 1))
                    pos=$((died_at + 1))
                else
                    # a copy with the same params before the range died: its copies here die too
                    awk -v lo="$pos" -v hi="$hi" -v v="$died_vars" -v op="$op" -v rc="$rc" \
                        'NR - 1 >= lo && NR - 1 < hi && $0 == v { print op "(" v "): exit status " rc }' "$cases" >> "$died_list"
                    n_died=$((n_died + $(awk -v lo="$pos" -v hi="$hi" -v v="$died_vars" 'NR - 1 >= lo && NR - 1 < hi && $0 == v' "$cases" | wc -l)))
                    dead="${dead:+$dead$'\n'}$died_vars"
                fi
                [ "$pos" -lt "$n_cases" ] && continue
            elif [ "$rc" -gt 1 ]; then
                note="exit status $rc"
            elif [ "$pos" -ge 0 ] && [ "$hi" -lt "$n_cases" ]; then
                pos=$hi
                continue
            fi
            break
        done
        op_rows 1 "$op" "$n_died" "$note" < "$kept" >> "$rows"
        [ "$rc" -ne 0 ] || [ "$n_died" -gt 0 ] && status=1
    done
    rm -f "$part" "$part.plain" "$part.num" "$idx" "$cases" "$kept"
    write_table grad "$log" "$errlog" "$status" < "$rows"
    rm -f "$rows"
    echo "family-tests: grad: the cases the program died in: $died_list"
    return $status
}

status=0
for mode in $MODES; do
    case "$mode" in
        test) run_test_mode || status=1 ;;
        grad) run_grad_mode || status=1 ;;
        build) ;;
        *) echo "family-tests: unknown mode '$mode' in MODES" >&2; exit 2 ;;
    esac
done
exit $status
