// Package authparse declares the port types of http-module `basicauth/header-parser` (component
// `http_auth_parse`).
package authparse

import "tinyhost.test/gotools/schemas/shapes/etc"

type Context any

type InMessage struct {
	Context Context      `json:"context" configurable:"true" required:"true" title:"Context" description:"Arbitrary message to be send further"`
	Headers []etc.Header `json:"headers" required:"true" title:"Headers" description:"HTTP headers list"`
}

type OutMessage struct {
	Context  Context `json:"context"`
	Found    bool    `json:"found"`
	User     string  `json:"user"`
	Password string  `json:"password"`
}
