// Package server declares the port types of http-module `server` (component `http_server`).
package server

import (
	"net/url"

	"tinyhost.test/gotools/schemas/shapes/etc"
)

type Settings struct {
	EnableStatusPort bool `json:"enableStatusPort" required:"true" title:"Enable status port" description:"Status port notifies when server is up or down"`
	EnableStopPort   bool `json:"enableStopPort" required:"true" title:"Enable stop port" description:"Stop port stops the running server when it receives any message"`
	MaxBodySize      int  `json:"maxBodySize" title:"Max Body Size (MB)" description:"Maximum request body size in megabytes. 0 means use default (10MB)."`
}

type StartContext any

type Start struct {
	Context      StartContext `json:"context,omitempty" configurable:"true" title:"Context" description:"Start context"`
	AutoHostName bool         `json:"autoHostName" title:"Automatically generate hostname" description:"Use cluster auto subdomain setup if any."`
	Hostnames    []string     `json:"hostnames,omitempty" title:"Hostnames"  description:"List of virtual host this server should be bound to."`
	ReadTimeout  int          `json:"readTimeout" required:"true" title:"Read Timeout" description:"Read timeout is the maximum duration for reading the entire request in seconds, including the body. A zero or negative value means there will be no timeout."`
	WriteTimeout int          `json:"writeTimeout" required:"true" title:"Write Timeout" description:"Write timeout is the maximum duration before timing out writes of the response in seconds. It is reset whenever a new request's header is read."`
	TLSCert      string       `json:"tlsCert,omitempty" title:"TLS Certificate" description:"PEM or base64-encoded PEM certificate for HTTPS. Leave empty for plain HTTP." format:"textarea"`
	TLSKey       string       `json:"tlsKey,omitempty" title:"TLS Private Key" description:"PEM or base64-encoded PEM private key for HTTPS. Leave empty for plain HTTP." format:"textarea"`
}

type Stop struct {
	Context StartContext `json:"context,omitempty" configurable:"true" title:"Context" description:"Ignored — any message on this port stops the server"`
}

type Request struct {
	Context       StartContext `json:"context"`
	Path          string       `json:"path" required:"true" title:"Path" description:"Request path with no query string, e.g. /hooks/github. Branch on this, not on requestURI."`
	PathSegments  []string     `json:"pathSegments" title:"Path Segments" description:"Path split on '/', empty parts dropped: /hooks/github gives [hooks, github]. Read one with $.pathSegments[0]."`
	RequestURI    string       `json:"requestURI" required:"true" title:"Request URI" description:"Full target including the query string. Use path to route; use this only when you need the raw line."`
	RequestParams url.Values   `json:"requestParams" required:"true"`
	Host          string       `json:"host" required:"true"`
	Method        string       `json:"method" required:"true" title:"Method" enum:"GET,POST,PATCH,PUT,DELETE" enumTitles:"GET,POST,PATCH,PUT,DELETE"`
	RealIP        string       `json:"realIP"`
	Headers       []etc.Header `json:"headers,omitempty"`
	Body          string       `json:"body"`
	Scheme        string       `json:"scheme"`
	PodName       string       `json:"podName" title:"Pod Name" description:"Name of the pod handling this request"`
}

type Control struct {
	Status     string   `json:"status" title:"Status" readonly:"true"`
	ListenAddr []string `json:"listenAddr" title:"Listen Address" readonly:"true"`
}

type Status struct {
	Context    StartContext `json:"context" title:"Context"`
	ListenAddr []string     `json:"listenAddr" title:"Listen Address"`
	IsRunning  bool         `json:"isRunning" title:"Is running"`
}

type Response struct {
	StatusCode  int             `json:"statusCode" required:"true" title:"Status Code" description:"HTTP status code for response" minimum:"100" default:"200" maximum:"599"`
	ContentType etc.ContentType `json:"contentType" required:"true"`
	Headers     []etc.Header    `json:"headers,omitempty"  title:"Response headers"`
	Body        string          `json:"body" title:"Response body" format:"textarea"`
}
