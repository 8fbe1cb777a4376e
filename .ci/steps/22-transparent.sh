# Unmodified SDKs: transparent mode on 443 (the real names in a private mount namespace's
# /etc/hosts), a CONNECT proxy, the metadata server, pushmock trust env/install/uninstall.
source .ci/lib.sh
[ "$(id -u)" -eq 0 ] || fail "the transparent-mode check binds 443 and uses unshare -m: run .ci/run as root (CI does)"
need_debug_build
need_venv apns2-up kalyke-apns async-firebase pytest firebase-admin "httpx[http2]" aioapns ./clients/python
# (a folder of the same version is not installed again unless forced)
"$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./clients/python || fail "pip install ./clients/python failed"
serve T --transparent --port 443 --proxy-port 0 --metadata-port 0
# What `pushmock trust env` prints is what every check below uses (subshells keep it from the later steps).
"$BIN" trust env --dir "$STEP_WORK/trust" >"$STEP_WORK/trust.env" || fail "pushmock trust env failed"
cat "$STEP_WORK/trust.env"
for variable in NODE_EXTRA_CA_CERTS SSL_CERT_FILE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE JAVA_TOOL_OPTIONS; do
  grep -q "^export $variable=" "$STEP_WORK/trust.env" || fail "pushmock trust env does not set $variable"
done
keytool -list -keystore "$STEP_WORK/trust/truststore.jks" -storepass changeit -alias pushmock-dev-ca >/dev/null \
  || fail "keytool cannot read the truststore pushmock trust env wrote"
echo "keytool reads the JKS truststore: $(keytool -list -keystore "$STEP_WORK/trust/truststore.jks" -storepass changeit | grep -c trustedCertEntry) trusted certificates"
HOSTS="$STEP_WORK/hosts"
{ cat /etc/hosts; echo "127.0.0.1 api.push.apple.com api.sandbox.push.apple.com api.development.push.apple.com fcm.googleapis.com oauth2.googleapis.com iid.googleapis.com"; } >"$HOSTS"
(
  eval "$(cat "$STEP_WORK/trust.env")"
  TOKEN="$("$BIN" token apns)"
  DEVICE="$(printf 'cd%.0s' $(seq 32))"
  # curl: the real Apple URL, by --resolve and through the proxy; the CA from CURL_CA_BUNDLE alone.
  out="$(curl -sS --http2 --resolve api.push.apple.com:443:127.0.0.1 -o /dev/null -w '%{http_version} %{http_code}' \
    -H "authorization: bearer $TOKEN" -H "apns-topic: com.example.app" --data '{"aps":{"alert":"resolve"}}' "https://api.push.apple.com/3/device/$DEVICE")"
  [ "$out" = "2 200" ] || fail "curl --resolve api.push.apple.com:443: $out"
  echo "curl https://api.push.apple.com/3/device/… with --resolve: $out"
  out="$(curl -sS --http2 --proxy http://127.0.0.1:$T_PROXY -o /dev/null -w '%{http_version} %{http_code}' \
    -H "authorization: bearer $TOKEN" -H "apns-topic: com.example.app" --data '{"aps":{"alert":"proxy"}}' "https://api.push.apple.com/3/device/$DEVICE")"
  [ "$out" = "2 200" ] || fail "curl --proxy to api.push.apple.com: $out"
  echo "curl https://api.push.apple.com/3/device/… through --proxy: $out"
  code="$(curl -sS --proxy http://127.0.0.1:$T_PROXY -o /dev/null -w '%{http_connect}' https://example.com/ 2>/dev/null || true)"
  [ "$code" = "403" ] || fail "CONNECT example.com:443 through PushMock's proxy: got '$code', want 403"
  grep -q "CONNECT example.com:443" "$T_LOG" || fail "the refused CONNECT is not logged"
  echo "CONNECT example.com:443: 403, logged, nothing forwarded"
  # Web Push on the real hosts: subscriptions are minted on them, and the certificate names them.
  for service in mozilla apple; do
    endpoint="$(curl -sS -X POST -H 'content-type: application/json' -d "{\"service\":\"$service\"}" "$T_API/web-push/subscriptions" | jq -r .endpoint)"
    host="$(cut -d/ -f3 <<<"$endpoint")"
    [ "$host" = "$([ $service = apple ] && echo web.push.apple.com || echo updates.push.services.mozilla.com)" ] || fail "a $service subscription in transparent mode: $endpoint"
    want="$([ $service = apple ] && echo '403 {"reason":"BadJwtToken"}' || echo '201 ')"
    out="$(curl -sS --http2 --resolve "$host:443:127.0.0.1" -X POST -H 'ttl: 60' -w '%{http_code}' -o "$STEP_WORK/wp.body" "$endpoint")"
    got="$out $(cat "$STEP_WORK/wp.body")"
    [ "$got" = "$want" ] || fail "curl --resolve $endpoint: $got, want $want"
    out="$(curl -sS --http2 --proxy http://127.0.0.1:$T_PROXY -X POST -H 'ttl: 60' -o /dev/null -w '%{http_code}' "$endpoint")"
    [ "$out" = "${want%% *}" ] || fail "curl --proxy $endpoint: $out"
    echo "Web Push at $endpoint (by --resolve and through the proxy): $want"
  done
  # firebase-admin (and aioapns in transparent mode) with no monkeypatch and no base URL.
  unshare -m sh -c 'mount --bind "$1" /etc/hosts && exec "$2" scripts/interop/unmodified_check.py transparent "$3" Certs' _ "$HOSTS" "$VENV/bin/python" "$T_INSPECTION" \
    || fail "unmodified SDKs through transparent mode"
  HTTPS_PROXY=http://127.0.0.1:$T_PROXY NO_PROXY=127.0.0.1,localhost "$VENV/bin/python" scripts/interop/unmodified_check.py proxy $T_INSPECTION Certs \
    || fail "unmodified SDKs through HTTPS_PROXY"
  # apns2-up (fractional iat), kalyke-apns, async-firebase; firebase-admin with fid targets, an
  # authorized_user file (refresh-token grant, quota project) and the metadata server.
  unshare -m sh -c 'mount --bind "$1" /etc/hosts && exec "$2" scripts/interop/sdk_fidelity_check.py "$3" "$4" Certs' _ "$HOSTS" "$VENV/bin/python" "$T_INSPECTION" "$T_METADATA" \
    || fail "SDK fidelity checks through transparent mode"
  # The Python helper's recipes for SDKs with no hook for another host (kalyke-apns, async-firebase).
  unshare -m sh -c 'mount --bind "$1" /etc/hosts && cd clients/python/recipes && PUSHMOCK_URL="http://127.0.0.1:$3" exec "$2" -m pytest -q -p no:cacheprovider test_recipe_transparent.py' _ "$HOSTS" "$VENV/bin/python" "$T_INSPECTION" \
    || fail "the Python helper's transparent-mode recipes"
) || exit 1
# pushmock trust install/uninstall against copies of the system store, in a private mount namespace
# (the machine's own store is never changed): curl trusts PushMock with no CA option, then no longer.
unshare -m sh -c '
  set -e
  for d in /usr/local/share/ca-certificates /etc/ssl/certs; do mkdir -p "$1/copy$d"; cp -a "$d/." "$1/copy$d/"; mount --bind "$1/copy$d" "$d"; done
  "$2" trust install
  curl -sS --resolve api.push.apple.com:443:127.0.0.1 -o /dev/null -w "after install: %{http_code}\n" https://api.push.apple.com/livez-unknown
  "$2" trust uninstall
  if curl -sS --resolve api.push.apple.com:443:127.0.0.1 -o /dev/null https://api.push.apple.com/ 2>/dev/null; then echo "still trusted after uninstall"; exit 1; fi
  echo "after uninstall: the certificate is no longer trusted"
' _ "$STEP_WORK" "$BIN" || fail "pushmock trust install/uninstall"
