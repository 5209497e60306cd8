module callpath

go 1.26
