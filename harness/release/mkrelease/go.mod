module baremcp/harness/release/mkrelease

go 1.26
