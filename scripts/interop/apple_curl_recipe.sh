#!/usr/bin/env bash
# Apple's "Sending push notifications using command-line tools" recipe, unchanged but for the host
# (PushMock under api.sandbox.push.apple.com via --resolve) and the CA: the JWT is signed by
# openssl, so the signature is ASN.1 DER.
#
# usage: apple_curl_recipe.sh PUSH_PORT CERTS_DIR [TOPIC PUSH_TYPE PAYLOAD DEVICE_TOKEN]
set -euo pipefail
PORT="$1"
CERTS="$2"
TOPIC="${3:-com.example.app}"
PUSH_TYPE="${4:-alert}"
DEFAULT_PAYLOAD='{"aps":{"alert":"test"}}'
PAYLOAD="${5:-$DEFAULT_PAYLOAD}"
DEVICE_TOKEN="${6:-$(printf 'b2%.0s' $(seq 32))}"
TEAM_ID=PMTEAM0001
AUTH_KEY_ID=PUSHMOCK01
TOKEN_KEY_FILE_NAME="$CERTS/AuthKey_PUSHMOCK01.p8"
APNS_HOST_NAME=api.sandbox.push.apple.com

JWT_ISSUE_TIME=$(date +%s)
JWT_HEADER=$(printf '{ "alg": "ES256", "kid": "%s" }' "${AUTH_KEY_ID}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
JWT_CLAIMS=$(printf '{ "iss": "%s", "iat": %d }' "${TEAM_ID}" "${JWT_ISSUE_TIME}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
JWT_HEADER_CLAIMS="${JWT_HEADER}.${JWT_CLAIMS}"
JWT_SIGNED_HEADER_CLAIMS=$(printf "${JWT_HEADER_CLAIMS}" | openssl dgst -binary -sha256 -sign "${TOKEN_KEY_FILE_NAME}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
AUTHENTICATION_TOKEN="${JWT_HEADER}.${JWT_CLAIMS}.${JWT_SIGNED_HEADER_CLAIMS}"

curl -sS -o /dev/stderr -w '%{http_code}' \
  --resolve "${APNS_HOST_NAME}:${PORT}:127.0.0.1" --cacert "$CERTS/ca.pem" \
  --header "apns-topic: $TOPIC" --header "apns-push-type: $PUSH_TYPE" \
  --header "authorization: bearer $AUTHENTICATION_TOKEN" \
  --data "$PAYLOAD" --http2 "https://${APNS_HOST_NAME}:${PORT}/3/device/${DEVICE_TOKEN}"
