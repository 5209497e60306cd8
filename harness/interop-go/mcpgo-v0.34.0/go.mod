module baremcp-interop/mcpgo-v0.34.0

go 1.25

require (
	baremcp-interop/scenario v0.0.0
	github.com/mark3labs/mcp-go v0.34.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
)

replace baremcp-interop/scenario => ../scenario
