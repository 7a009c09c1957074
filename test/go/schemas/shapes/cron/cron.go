// Package cron declares the port types of common-module `cron`.
package cron

type Context any

type Settings struct {
	Context  Context `json:"context" configurable:"true" title:"Context" description:"Message sent on Out at every scheduled run"`
	Schedule string  `json:"schedule" required:"true" title:"Schedule" description:"Cron expression: minute hour day-of-month month day-of-week, e.g. '*/5 * * * *' or '0 9 * * 1-5'" default:"*/1 * * * *"`
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
