# Shared by bench/ scripts: a release build, the local tenant, a signed-in profile in the
# private keyring of Scripts/with-keyring. Source it; it sets $bin, $tenant, $profile, $work.
set -euo pipefail
cd "$(dirname "$0")/.."
# The release build as it ships: Swift runtime linked statically (see packaging/).
bin=.build-static/release
[[ -x $bin/strivacity && -x $bin/strivacity-emulator ]] ||
  swift build -c release --static-swift-stdlib --scratch-path .build-static >&2
work=$(mktemp -d)
trap 'kill $emulator 2>/dev/null; wait $emulator 2>/dev/null; rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$bin/strivacity-emulator" --journey password >"$work/url" 2>/dev/null &
emulator=$!
for _ in $(seq 100); do [[ -s "$work/url" ]] && break; sleep 0.05; done
tenant=$(head -n1 "$work/url")
profile=bench
DEMO_PASSWORD=Demo-pass-1 "$bin/strivacity" login --profile "$profile" --tenant "$tenant" --client-id strivacity-cli \
  --field identifier=demo@example.com --field-env password=DEMO_PASSWORD </dev/null 2>/dev/null
attributes=(profile "$profile" issuer "$tenant" client_id strivacity-cli)

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }
