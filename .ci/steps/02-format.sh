# Style: swift format lint --strict (.swift-format).
source .ci/lib.sh
swift format lint --strict -r Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources Examples/TestingOnly/Package.swift Examples/TestingOnly/Tests \
  || fail "swift format lint found code not formatted as .swift-format says: run the same files through swift format format -i -r"
note "formatted"
