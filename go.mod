module baremcp

go 1.26
