module baremcp/harness/make-it-yours/listcheck

go 1.26
