module baremcp/harness/cluster

go 1.26
