module tinyhost.test/gotools

go 1.25.12

require (
	github.com/tiny-systems/ajson v0.1.6
	github.com/tiny-systems/module v0.13.125
)
