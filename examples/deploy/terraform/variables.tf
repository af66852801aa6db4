variable "name" {
  description = "Prefix of every resource's name."
  type        = string
  default     = "orders"
}

variable "streams" {
  description = "The event streams the projector reads (the names in eventFilterPattern)."
  type        = list(string)
  default     = ["Order"]
}

variable "lambda_zip" {
  description = "The projector's bundle (a handler built with lambdaHandler), zipped."
  type        = string
}

variable "maximum_retry_attempts" {
  description = "Retries of a failing batch before its coordinates go to the OnFailure queue (-1: until the records expire)."
  type        = number
  default     = 100
}

variable "reaction_streams" {
  description = "The event streams the workflow takes its inputs from (the names in eventFilterPattern)."
  type        = list(string)
  default     = ["Order", "Payment"]
}

variable "reactions_zip" {
  description = "The reactions' bundle (a handler built with lambdaHandler and the workflow), zipped."
  type        = string
}

variable "timer_sweep_zip" {
  description = "The timer sweep's bundle (a handler built with timerSweepHandler), zipped."
  type        = string
}

variable "use_scheduler" {
  description = "Wake each timer at its time with EventBridge Scheduler (SchedulerTimers), besides the sweep."
  type        = bool
  default     = false
}

variable "timer_wakeup_zip" {
  description = "With use_scheduler: the bundle of the function the timers' schedules invoke (schedulerTimerHandler), zipped."
  type        = string
  default     = ""
}
