module tinyhost.test/gotools

go 1.25.12

require (
	github.com/goccy/go-json v0.10.6
	github.com/swaggest/jsonschema-go v0.3.79
	github.com/tiny-systems/ajson v0.1.6
	github.com/tiny-systems/module v0.13.125
)

require (
	github.com/pkg/errors v0.9.1 // indirect
	github.com/swaggest/refl v1.4.0 // indirect
	golang.org/x/text v0.39.0 // indirect
)
