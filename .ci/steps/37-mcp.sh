# MCP: the official MCP Python SDK drives PushMock's MCP server over Streamable HTTP (/mcp on the
# inspection port) and over stdio (pushmock mcp).
# ci: beside
source .ci/lib.sh
need_debug_build
need_venv mcp
serve MAIN
"$VENV/bin/python" scripts/interop/mcp_check.py "$BIN" "$MAIN_INSPECTION" || fail "the MCP check failed"
