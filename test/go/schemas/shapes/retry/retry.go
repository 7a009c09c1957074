// Package retry declares the port types of common-module `retry`.
package retry

type Context any

type Settings struct {
	MaxAttempts    int    `json:"maxAttempts" required:"true" minimum:"1" default:"5" title:"Max Attempts" description:"Upper bound on retry loops. Counts the first attempt; e.g. 5 = original + 4 retries."`
	InitialDelayMs int    `json:"initialDelayMs" required:"true" minimum:"0" default:"500" title:"Initial Delay (ms)" description:"Wait before the first retry."`
	MaxDelayMs     int    `json:"maxDelayMs" required:"true" minimum:"0" default:"30000" title:"Max Delay (ms)" description:"Upper bound on a single wait. Caps exponential growth."`
	Backoff        string `json:"backoff" required:"true" enum:"exponential,linear,constant" default:"exponential" title:"Backoff" description:"exponential: initial * 2^n. linear: initial * (n+1). constant: always initial."`
	Jitter         bool   `json:"jitter" title:"Jitter" description:"Randomise each delay by ±25% to avoid thundering herd when many flows retry the same upstream."`
}

type Request struct {
	Context   Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Original request payload — pass through unchanged so the loop can re-invoke the upstream component."`
	Attempt   int     `json:"attempt" title:"Attempt" description:"Zero or absent on first arrival. Component increments it on every retry."`
	Retryable bool    `json:"retryable" title:"Retryable" description:"From the error port. False = straight to failed without sleeping."`
	Error     string  `json:"error,omitempty" title:"Last Error" description:"Last error message, forwarded to failed for the dead-letter path."`
}

type Retry struct {
	Context     Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Attempt     int     `json:"attempt" title:"Attempt" description:"Incremented before emit. Next call lands here with this value."`
	NextDelayMs int     `json:"nextDelayMs" title:"Slept (ms)" description:"How long the component just slept. Informational — useful for traces."`
}

type Failed struct {
	Context Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Attempt int     `json:"attempt" title:"Attempt" description:"Final attempt count when the loop gave up."`
	Error   string  `json:"error,omitempty" title:"Last Error"`
	Reason  string  `json:"reason" title:"Reason" description:"max_attempts | not_retryable"`
}
