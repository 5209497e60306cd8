module baremcp/harness/bench/rows

go 1.26
