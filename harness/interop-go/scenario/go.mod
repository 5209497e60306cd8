module baremcp-interop/scenario

go 1.25
