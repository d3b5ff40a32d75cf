module github.com/kgen-dev/kgen

go 1.26.8

require (
	github.com/dave/jennifer v1.7.1
	github.com/ebitengine/purego v0.11.3
	github.com/goccy/go-yaml v1.19.2
	github.com/pmezard/go-difflib v1.0.0
	github.com/spf13/cobra v1.10.2
	golang.org/x/sys v0.50.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

tool github.com/kgen-dev/kgen/cmd/gen
