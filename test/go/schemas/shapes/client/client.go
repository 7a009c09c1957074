// Package client declares the port types of http-module `client` (component `http_request`).
package client

import "tinyhost.test/gotools/schemas/shapes/etc"

type Context any

type Settings struct {
	EnableErrorPort  bool `json:"enableErrorPort" required:"true" title:"Enable Error Port" description:"If request fail, error port will emit an error message. HTTP responses with status code >= 400 will emit an error message."`
	MaxResponseBytes int  `json:"maxResponseBytes" title:"Max Response Bytes" description:"Cap on response body size; larger responses fail rather than OOM the pod. Defaults to 10485760 (10MB)."`
}

type Request struct {
	Context           Context         `json:"context,omitempty" configurable:"true" title:"Context" description:"Message to be sent further"`
	Method            string          `json:"method" required:"true" title:"Method" enum:"GET,POST,PATCH,PUT,DELETE" enumTitles:"GET,POST,PATCH,PUT,DELETE" colSpan:"col-span-6"`
	Timeout           int             `json:"timeout" required:"true" title:"Request Timeout" colSpan:"col-span-6"`
	URL               string          `json:"url" required:"true" title:"URL" format:"uri"`
	BearerToken       string          `json:"bearerToken,omitempty" format:"password" title:"Bearer Token" description:"Sets the Authorization: Bearer header. Wins over basic auth if both are set; an explicit Authorization header below overrides either."`
	BasicAuthUser     string          `json:"basicAuthUser,omitempty" title:"Basic Auth User" colSpan:"col-span-6"`
	BasicAuthPassword string          `json:"basicAuthPassword,omitempty" format:"password" title:"Basic Auth Password" colSpan:"col-span-6"`
	Headers           []etc.Header    `json:"headers,omitempty" title:"Headers"`
	ContentType       etc.ContentType `json:"contentType" title:"Request Content Type" required:"true"`
	Body              string          `json:"body" title:"Request Body" format:"textarea"`
}

type Response struct {
	Context  Context          `json:"context" configurable:"true" required:"true" title:"Context" description:"Message to be sent further"`
	Response ResponseResponse `json:"response" title:"Response" required:"true" description:"HTTP Response"`
}

type TLSInfo struct {
	NotAfter        string   `json:"notAfter" title:"Not After" description:"Certificate expiry date in RFC3339 format"`
	NotBefore       string   `json:"notBefore" title:"Not Before" description:"Certificate start date in RFC3339 format"`
	Issuer          string   `json:"issuer" title:"Issuer"`
	Subject         string   `json:"subject" title:"Subject"`
	DNSNames        []string `json:"dnsNames" title:"DNS Names"`
	DaysUntilExpiry int      `json:"daysUntilExpiry" title:"Days Until Expiry"`
}

type ResponseResponse struct {
	Headers    []etc.Header `json:"headers" required:"true" title:"Headers"`
	Status     string       `json:"status"`
	StatusCode int          `json:"statusCode"`
	Body       string       `json:"body" configurable:"false" title:"Body"`
	TLS        *TLSInfo     `json:"tls,omitempty" title:"TLS" description:"TLS certificate information (HTTPS only)"`
}

type Error struct {
	Context   Context          `json:"context" configurable:"true" required:"true" title:"Context" description:"Message to be sent further"`
	Error     string           `json:"error" required:"true"`
	Retryable bool             `json:"retryable" title:"Retryable" description:"True for network failures, 429 (rate limit), and 5xx responses — wire the error port into the retry component to retry these with backoff. False for 4xx (client errors won't get better on retry)."`
	Response  ResponseResponse `json:"response"`
}
