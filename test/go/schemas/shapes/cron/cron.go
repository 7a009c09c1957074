// Package cron declares the port types of common-module `cron`.
package cron

type Context any

type Settings struct {
	Context  Context `json:"context" configurable:"true" title:"Context" description:"Arbitrary message to send on each scheduled execution"`
	Schedule string  `json:"schedule" required:"true" title:"Schedule" description:"Cron expression (e.g., '*/5 * * * *' for every 5 minutes, '0 9 * * 1-5' for 9 AM on weekdays)" default:"*/1 * * * *"`
}

type ControlStopped struct {
	Context  Context `json:"context" required:"true" title:"Context"`
	Schedule string  `json:"schedule" required:"true" title:"Schedule" description:"Cron expression"`
	Status   string  `json:"status" title:"Status" readonly:"true"`
	Start    bool    `json:"start" format:"button" title:"Start" required:"true"`
}

type ControlRunning struct {
	Context  Context `json:"context" required:"true" title:"Context" readonly:"true"`
	Schedule string  `json:"schedule" title:"Schedule" readonly:"true"`
	NextRun  string  `json:"nextRun" title:"Next Run" readonly:"true"`
	Status   string  `json:"status" title:"Status" readonly:"true"`
	Stop     bool    `json:"stop" format:"button" title:"Stop" required:"true"`
}
