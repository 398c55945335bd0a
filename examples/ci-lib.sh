# What the examples' ci.sh scripts share: sourced, not run. Each script sets $work (a temporary
# folder), defines fail() and cleanup() or takes replica_traps', and runs from the repository root.
# Their Maven builds take options from MAVEN_ARGS, which Maven reads itself: for another local
# repository, MAVEN_ARGS="-Dmaven.repo.local=DIR" examples/NAME/ci.sh (unset: ~/.m2).
#   start_control_plane            the local control plane; sets $apiserver (its pid) and $admin
#                                  (its admin kubeconfig); stop it with stop_control_plane
#   service_account NS RBAC SA OUT namespace NS with the manifest RBAC applied, and a kubeconfig for
#                                  its ServiceAccount SA written to OUT
#   await FILE REGEX SECONDS [PID] until a line of FILE matches REGEX; fails after SECONDS, or at
#                                  once when PID has exited
#   field FILE REGEX               the first group of the first log line "... - REGEX"
#   replica_traps NAME             cleanup() and fail() for a script that runs replicas (their pids
#                                  in the array pid, their logs in $work/replica-*.log), and the
#                                  EXIT and ERR traps; $status 0 at the end drops $work
#   elector_version                the version of the repository's pom.xml (elector-parent); fails
#                                  when it cannot be read
#   standin_base_image NAME        $work/base.tar, a `docker save` tarball (one layer, no JRE) that
#                                  stands in for the pom's base image, which CI cannot reach; sets
#                                  $base_layer (its layer's digest)

step() { echo "== $*"; }

elector_version() {
  local v
  v="$(sed -n '/<artifactId>elector-parent<\/artifactId>/,/<version>/s#.*<version>\(.*\)</version>.*#\1#p' "$root/pom.xml" | head -n1)"
  [[ -n "$v" ]] || fail "cannot read the version from pom.xml"
  echo "$v"
}

await() {
  local file=$1 regex=$2 deadline=$((SECONDS + $3)) watched=${4:-}
  until grep -qE "$regex" "$file" 2>/dev/null; do
    [[ $SECONDS -lt $deadline ]] || return 1
    if [[ -n "$watched" ]] && ! kill -0 "$watched" 2>/dev/null; then
      grep -qE "$regex" "$file" 2>/dev/null && return 0
      return 1
    fi
    sleep 0.1
  done
}

field() { sed -n "s#.* - $2#\1#p" "$1" | head -n1; }

start_control_plane() {
  step "start the local control plane"
  local bin="${ELECTOR_APISERVER_BIN:-$(bash testenv/build.sh | tail -n 1)}"
  mkfifo "$work/apiserver.stdin"
  "$bin" --exit-on-stdin-eof <"$work/apiserver.stdin" >"$work/apiserver.out" 2>"$work/apiserver.err" &
  apiserver=$!
  exec 7>"$work/apiserver.stdin"
  await "$work/apiserver.out" '^ELECTOR-APISERVER-READY ' 120 "$apiserver" \
    || fail "the control plane is not ready: $(cat "$work/apiserver.err")"
  admin="$(sed -n 's/.*"kubeconfig":"\([^"]*\)".*/\1/p' "$work/apiserver.out")"
}

stop_control_plane() {
  if [[ -n "${apiserver:-}" ]]; then
    exec 7>&- # stdin EOF: the control plane stops and deletes its data
    wait "$apiserver" 2>/dev/null || true
  fi
}

service_account() {
  local namespace=$1 rbac=$2 account=$3 out=$4
  if [[ ! -f examples/demo/target/classes/dev/elector/demo/LocalServiceAccount.class || ! -d examples/demo/target/lib ]]; then
    step "build the demo module (its LocalServiceAccount sets up the namespace)"
    ./mvnw -B -ntp -q package -DskipTests -pl examples/demo -am
  fi
  step "namespace $namespace with ${rbac#"$PWD"/}; a kubeconfig for its ServiceAccount $account"
  java -cp "examples/demo/target/classes:examples/demo/target/lib/*" dev.elector.demo.LocalServiceAccount \
    --admin-kubeconfig "$admin" --namespace "$namespace" --rbac "$rbac" \
    --service-account "$account" --out "$out" 2>"$work/setup.err" | sed 's/^/   /' \
    || fail "could not set up namespace $namespace: $(tail -n 5 "$work/setup.err")"
}

replica_traps() {
  ci_name=$1
  cleanup() {
    for i in "${!pid[@]}"; do kill -KILL "${pid[$i]}" 2>/dev/null || true; done
    stop_control_plane
    if [[ $status == 0 ]]; then rm -rf "$work"; else echo "$ci_name: logs kept in $work"; fi
  }
  fail() {
    echo "$ci_name: FAIL $*"
    for log in "$work"/replica-*.log; do
      [[ -f "$log" ]] && { echo "--- last lines of $log"; tail -n 20 "$log"; }
    done
    exit 1
  }
  trap cleanup EXIT
  trap 'fail "line $LINENO: $BASH_COMMAND exited with $?"' ERR
}

standin_base_image() {
  local name=$1
  step "a stand-in base image for Jib: tar://$work/base.tar"
  mkdir -p "$work/base/root/etc"
  echo "stands in for eclipse-temurin:17-jre in $name's ci.sh" >"$work/base/root/etc/$name-ci-base"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/base/root" \
    -cf "$work/base/layer.tar" etc
  base_layer="sha256:$(sha256sum "$work/base/layer.tar" | cut -c1-64)"
  printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/bin:/usr/bin:/bin"]},"rootfs":{"type":"layers","diff_ids":["%s"]}}\n' \
    "$base_layer" >"$work/base/config.json"
  echo "[{\"Config\":\"config.json\",\"RepoTags\":[\"$name-ci-base:local\"],\"Layers\":[\"layer.tar\"]}]" \
    >"$work/base/manifest.json"
  tar -C "$work/base" -cf "$work/base.tar" manifest.json config.json layer.tar
}
