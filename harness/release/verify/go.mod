module baremcp/harness/release/verify

go 1.26.0

require (
	github.com/modelcontextprotocol/registry v1.8.9
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
)
