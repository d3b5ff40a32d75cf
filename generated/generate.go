package generated

// Running `go generate ./...` from anywhere in the module regenerates this
// directory; gen finds the module root itself.
//go:generate go run github.com/kgen-dev/kgen/cmd/gen
