module baremcp/tools/loadtest

go 1.26
