module baremcp/harness/loadtest

go 1.26
