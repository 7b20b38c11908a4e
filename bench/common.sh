# Shared by bench/ scripts: the release build as packaged, the local tenant, a signed-in profile
# in the private keyring of Scripts/with-keyring. Source it; it sets $bin, $tenant, $profile,
# $work, $emulator_bin, and the helpers now_us, stats, ratio and cleanup (the EXIT trap).
set -euo pipefail
cd "$(dirname "$0")/.."
# What is measured: the release build as it ships, the same product `make release` builds (after
# `make test` it is there already: the package check made it), laid out as installed: the small
# static `strivacity` with `strivacity-cli` beside it.
[[ -x .build-front/release/strivacity && -x .build-static/release/strivacity-cli ]] || make --no-print-directory release >&2
layout=$(mktemp -d)
cp .build-front/release/strivacity "$layout/strivacity"
ln -s "$PWD/.build-static/release/strivacity-cli" "$layout/strivacity-cli"
bin=$layout
# The tenant is not what is measured: any build of it will do, the debug one `make test` left first.
emulator_bin=.build/debug/strivacity-emulator
[[ -x $emulator_bin ]] || swift build --build-path .build --product strivacity-emulator >&2
work=$(mktemp -d)
# What every bench leaves behind is removed on exit; a bench adds its own steps before it.
cleanup() { kill $emulator 2>/dev/null; wait $emulator 2>/dev/null; rm -rf "$work" "$layout"; }
trap cleanup EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$emulator_bin" --journey password >"$work/url" 2>/dev/null &
emulator=$!
for _ in $(seq 100); do [[ -s "$work/url" ]] && break; sleep 0.05; done
tenant=$(head -n1 "$work/url")
profile=bench
# A bench may add to the profile before it signs in (BENCH_CONFIG_EXTRA: TOML after the table).
if [[ -n ${BENCH_CONFIG_EXTRA:-} ]]; then
  mkdir -p "$XDG_CONFIG_HOME/strivacity"
  printf '[profiles.%s]\ntenant = "%s"\nclient_id = "strivacity-cli"\n%s\n' "$profile" "$tenant" "$BENCH_CONFIG_EXTRA" \
    >"$XDG_CONFIG_HOME/strivacity/config.toml"
fi
DEMO_PASSWORD=Demo-pass-1 "$bin/strivacity" login --profile "$profile" --tenant "$tenant" --client-id strivacity-cli \
  --field identifier=demo@example.com --field-env password=DEMO_PASSWORD </dev/null 2>/dev/null
attributes=(profile "$profile" issuer "$tenant" client_id strivacity-cli)

# Times taken from bash's own clock ($EPOCHREALTIME): no process is started to read the time,
# so an interval holds the measured command only.
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
now() { echo $(( $(now_us) * 1000 )); }  # nanoseconds, for older scripts
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }
# stats FILE SCALE UNIT: "median (min–max)" of the numbers in FILE divided by SCALE.
stats() {
  sort -n "$1" | awk -v s="$2" -v u="$3" '{ a[NR] = $1 / s } END {
    m = (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)
    printf "%6.1f %s (%.1f–%.1f)", m, u, a[1], a[NR] }'
}
# ratio FILE_A FILE_B: median(A) / median(B)
ratio() { awk -v a="$(median <"$1")" -v b="$(median <"$2")" 'BEGIN { printf "%.2fx", a / b }'; }
