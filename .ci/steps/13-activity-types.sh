# Activity types read from the app's Swift source: pushmock activity-types, serve --activity-types,
# PUT text/x-swift, and an SDK preset.
# ci: beside
source .ci/lib.sh
need_debug_build
PTS_TOKEN="$(hex 80 ef)"
WIDGET=Tests/PushMockSwiftSourceTests/Fixtures/DeliveryWidget
"$BIN" activity-types "$WIDGET" >"$STEP_WORK/types.json" || fail "pushmock activity-types $WIDGET exited $?: $(cat "$STEP_WORK/types.json")"
jq -e '.types.DeliveryAttributes.declaration.contentState.etaMinutes.key == "eta_minutes" and (.warnings | length) == 0' "$STEP_WORK/types.json" >/dev/null \
  || fail "activity-types: $(cat "$STEP_WORK/types.json")"
set +e; "$BIN" activity-types Tests/PushMockSwiftSourceTests/Fixtures/Unreadable >"$STEP_WORK/types-bad.json" 2>/dev/null; code=$?; set -e
[ "$code" = "1" ] && jq -e '.warnings | any(contains("CLLocationCoordinate2D"))' "$STEP_WORK/types-bad.json" >/dev/null \
  || fail "activity-types with warnings: exit $code, $(cat "$STEP_WORK/types-bad.json")"
serve TYPES --activity-types "$WIDGET"
jq -e '.activityTypes | map(select(.name == "DeliveryAttributes" and .declaredBy == "source" and (.origin | endswith("DeliveryAttributes.swift:5")))) | length == 1' \
  <(curl -sS http://127.0.0.1:$TYPES_INSPECTION/api/v1/activity-types) >/dev/null || fail "GET /activity-types: $(curl -sS http://127.0.0.1:$TYPES_INSPECTION/api/v1/activity-types)"
NOW="$(date +%s)"
start_body() { echo "{\"aps\":{\"event\":\"start\",\"timestamp\":$NOW,\"attributes-type\":\"DeliveryAttributes\",\"attributes\":{\"orderID\":\"A1\",\"restaurant\":{\"name\":\"Luigi\"}},\"content-state\":$1,\"alert\":{\"title\":\"Order\",\"body\":\"On its way\"}}}"; }
status="$(bash scripts/interop/apple_curl_recipe.sh "$TYPES_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "$(start_body '{"stage":"on_the_way","eta":800000000,"eta_minutes":5,"stops":[]}')" "$PTS_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "200" ] || fail "a start that fits the Swift type: HTTP $status $(cat "$STEP_WORK/recipe.body")"
status="$(bash scripts/interop/apple_curl_recipe.sh "$TYPES_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "$(start_body '{"stage":"onTheWay","eta":800000000,"eta_minutes":5,"stops":[]}')" "$PTS_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "400" ] && jq -e '.reason == "LiveActivityContentStateUndecodable"' "$STEP_WORK/recipe.body" >/dev/null \
  || fail "a start whose stage is not a case of the Swift enum: HTTP $status $(cat "$STEP_WORK/recipe.body")"
# Reload from source while it runs: PUT the file itself as text/x-swift.
cat >"$STEP_WORK/TripAttributes.swift" <<'SWIFT'
import ActivityKit
struct TripAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable { var leg: Int }
    var tripID: String
}
SWIFT
curl -sS -X PUT "http://127.0.0.1:$TYPES_INSPECTION/api/v1/activity-types?file=TripAttributes.swift" -H 'content-type: text/x-swift' \
  --data-binary @"$STEP_WORK/TripAttributes.swift" >"$STEP_WORK/put-types.json"
jq -e '.activityTypes[0].name == "TripAttributes" and .activityTypes[0].origin == "TripAttributes.swift:2" and (.warnings | length) == 0' "$STEP_WORK/put-types.json" >/dev/null \
  || fail "PUT /activity-types (text/x-swift): $(cat "$STEP_WORK/put-types.json")"
trip_body() { echo "{\"aps\":{\"event\":\"start\",\"timestamp\":$NOW,\"attributes-type\":\"$1\",\"attributes\":$2,\"content-state\":$3,\"alert\":{\"title\":\"Trip\",\"body\":\"Started\"}}}"; }
status="$(bash scripts/interop/apple_curl_recipe.sh "$TYPES_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "$(trip_body TripAttributes '{"tripID":"T1"}' '{"leg":"one"}')" "$PTS_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "400" ] && jq -e '.description | startswith("content-state.leg")' "$STEP_WORK/recipe.body" >/dev/null \
  || fail "a start of the type PUT as Swift, leg a string: HTTP $status $(cat "$STEP_WORK/recipe.body")"
# An SDK's own type needs no declaration: the Flutter live_activities plugin's, without appGroupId.
status="$(bash scripts/interop/apple_curl_recipe.sh "$TYPES_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "$(trip_body LiveActivitiesAppAttributes '{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF"}' '{"score":1}')" "$PTS_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "400" ] && jq -e '.description | contains("Flutter live_activities")' "$STEP_WORK/recipe.body" >/dev/null \
  || fail "a start of the Flutter preset without appGroupId: HTTP $status $(cat "$STEP_WORK/recipe.body")"
echo "activity-types: DeliveryAttributes read from $WIDGET; serve --activity-types: a fitting start 200, stage \"onTheWay\" 400 LiveActivityContentStateUndecodable; PUT text/x-swift declared TripAttributes; the Flutter preset checked"
